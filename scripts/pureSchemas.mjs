// An esbuild plugin for the servers' bundle: the MCP SDK's types.js builds about 160 zod schemas
// when it loads, the client's and the server's alike, and esbuild must keep every one because a
// call may have side effects. Each top-level `const X = <expression>` of that file is rewritten as
// `const X = /* @__PURE__ */ (() => <expression>)()`, the same value built at the same moment, so
// that esbuild drops the schemas nothing in the bundle reads (and what only they read).

import { readFile } from 'node:fs/promises';
import ts from 'typescript';

/** `source` with the initialiser of every top-level const that is more than a literal or a name wrapped in a pure call. */
export function markTopLevelConstsPure(source, fileName = 'types.js') {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const edits = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer;
      if (!init || ts.isIdentifier(init) || ts.isLiteralExpression(init) || ts.isArrowFunction(init) || ts.isFunctionExpression(init)) continue;
      edits.push([init.getStart(file), init.end]);
    }
  }
  let out = source;
  for (const [start, end] of edits.reverse()) out = `${out.slice(0, start)}/* @__PURE__ */ (() => (${out.slice(start, end)}))()${out.slice(end)}`;
  return out;
}

/** The plugin: applies markTopLevelConstsPure to the files whose path matches `filter`. */
export function pureSchemas(filter) {
  return {
    name: 'pure-schemas',
    setup(build) {
      build.onLoad({ filter }, async (args) => ({ contents: markTopLevelConstsPure(await readFile(args.path, 'utf8'), args.path), loader: 'js' }));
    },
  };
}
