// scripts/pureSchemas.mjs, the build's plugin that lets esbuild drop the MCP SDK's zod schemas
// nothing in a bundle reads: the rewrite keeps every value and the order in which they are built,
// and a bundle of the real SDK through the plugin no longer carries the client's schemas.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vm from 'node:vm';
import * as esbuild from 'esbuild';

const root = path.resolve(__dirname, '..', '..');
type PureSchemas = {
  markTopLevelConstsPure(source: string, fileName?: string): string;
  pureSchemas(filter: RegExp): esbuild.Plugin;
};
const load = (): Promise<PureSchemas> => import(path.join(root, 'scripts', 'pureSchemas.mjs')) as Promise<PureSchemas>;

/** Runs a script that ends by assigning `result`, and returns it with the log of what it built. */
function evaluate(source: string): { result: unknown; log: string[] } {
  const context = { log: [] as string[], result: undefined as unknown };
  vm.runInNewContext(source, context);
  return JSON.parse(JSON.stringify({ result: context.result, log: context.log })) as { result: unknown; log: string[] };
}

describe('the pure schemas plugin (scripts/pureSchemas.mjs)', function () {
  this.timeout(60_000);

  it('wraps each top-level const built by a call in a pure call that builds the same value in the same order', async () => {
    const { markTopLevelConstsPure } = await load();
    const source = [
      'const make = (name, parts) => (log.push(name), { name, parts });',
      'const A = make("A", []);',
      'const B = make("B", [A])',
      '  .parts;',
      'const C = A, D = 3, E = () => make("E", []);',
      'let F = make("F", []);',
      'const G = { g: make("G", [B]) };',
      'result = { A, B, C, D, E: typeof E, F, G };',
    ].join('\n');
    const marked = markTopLevelConstsPure(source);
    assert.equal((marked.match(/\/\* @__PURE__ \*\/ \(\(\) => \(/g) ?? []).length, 3, marked);
    assert.match(marked, /const B = \/\* @__PURE__ \*\/ \(\(\) => \(make\("B", \[A\]\)\n {2}\.parts\)\)\(\);/);
    assert.match(marked, /let F = make\("F", \[\]\);/, 'only const bindings are rewritten');
    assert.deepEqual(evaluate(marked), evaluate(source));
  });

  it("lets a bundle of the SDK's types.js drop the schemas it does not read", async () => {
    const { pureSchemas } = await load();
    const bundle = async (plugins: esbuild.Plugin[]): Promise<string> => {
      const result = await esbuild.build({
        absWorkingDir: root,
        stdin: { contents: "import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js'; console.log(CallToolRequestSchema);", resolveDir: root, loader: 'js' },
        bundle: true,
        platform: 'node',
        format: 'cjs',
        write: false,
        logLevel: 'silent',
        plugins,
      });
      return result.outputFiles[0]!.text;
    };
    const plain = await bundle([]);
    const pure = await bundle([pureSchemas(/@modelcontextprotocol[\\/]sdk[\\/]dist[\\/](esm|cjs)[\\/]types\.js$/)]);
    for (const text of [plain, pure]) assert.match(text, /\bCallToolRequestSchema = /);
    assert.match(plain, /\bClientResultSchema = /);
    assert.doesNotMatch(pure, /\bClientResultSchema = /);
    assert.doesNotMatch(pure, /\bElicitRequestSchema = /);
    assert.ok(pure.length < plain.length * 0.8, `${pure.length} against ${plain.length} characters`);
  });
});
