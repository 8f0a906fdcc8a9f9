// The thin start path (ARCHITECTURE.md, "Bundles and the start path"): a bundle evaluates at start
// every module its entry reaches through static imports; a module reached only through `import()`
// is evaluated when a command or a tool first needs it. These tests read esbuild's metafile of the
// real entries and fail when a static import brings the engine, a service or its zod schemas back
// into what the CLI and a server evaluate before they answer.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

const root = path.resolve(__dirname, '..', '..');

/**
 * The inputs an entry reaches through static imports. Our code loads lazily with `import()` or a
 * `require()` inside a function (lint allows `require` for nothing else), so neither is followed
 * from our files; a package's own `require()` calls run when it loads and are followed.
 */
async function evaluatedAtStart(entry: string): Promise<Set<string>> {
  const { metafile } = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    write: false,
    metafile: true,
    logLevel: 'silent',
    outdir: 'unused',
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    define: { AGENT_PROGRESS_VERSION: '"0"', AGENT_PROGRESS_BUILD: '"0"' },
  });
  const reached = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (reached.has(file)) continue;
    reached.add(file);
    const ours = !file.startsWith('node_modules/');
    for (const imp of metafile.inputs[file]?.imports ?? []) {
      if (imp.external || imp.kind === 'dynamic-import' || (ours && imp.kind === 'require-call')) continue;
      pending.push(imp.path);
    }
  }
  return reached;
}

const inside = (reached: Set<string>, pattern: RegExp): string[] => [...reached].filter((f) => pattern.test(f));

describe('start path of the CLI and the servers', function () {
  this.timeout(60_000);

  it('the CLI evaluates no service, engine, host client or zod schema before a command asks for one', async () => {
    const reached = await evaluatedAtStart('src/cli/main.ts');
    assert.ok(reached.has('src/core/services.ts'), 'the metafile walk reaches the composition root');
    assert.deepEqual(
      inside(
        reached,
        /^src\/core\/(storage\/(openLedger|copyLedger|sqlite\/engine|postgres\/openPostgresLedger)|host\/client|progress\/(progressService|schemas)|queue\/queueService|workflow\/workflowService|review\/reviewService|traces\/traceService|transfer\/transferService|digests\/digestService)\.ts$|^node_modules\/(zod|vscode-jsonrpc|sql\.js|pg)\//,
      ),
      [],
    );
  });

  it('the launchers dist/cli.js and dist/server.js load nothing but the code cache (and its main-bundle mark) before their bundle', async () => {
    for (const launcher of ['src/cli/launch.ts', 'src/mcp/launch.ts']) {
      const reached = await evaluatedAtStart(launcher);
      assert.deepEqual([...reached].sort(), [launcher, 'src/core/codeCache.ts', 'src/core/mainBundle.ts'].sort(), launcher);
    }
  });

  it('a server evaluates no toolset, service, engine, host client or HTTP transport before it serves its toolset', async () => {
    const reached = await evaluatedAtStart('src/mcp/main.ts');
    assert.ok(reached.has('src/mcp/toolsets.ts'), 'the metafile walk reaches the toolset catalog');
    assert.deepEqual(
      inside(
        reached,
        /^src\/mcp\/(tools\/|http\.ts$)|^node_modules\/@modelcontextprotocol\/sdk\/dist\/esm\/server\/webStandardStreamableHttp\.js$|^src\/core\/(storage\/(openLedger|sqlite\/engine|postgres\/openPostgresLedger)|host\/client|(progress|queue|workflow|review|traces)\/schemas|progress\/progressService|queue\/queueService|workflow\/workflowService|review\/reviewService|traces\/traceService|transfer\/transferService|digests\/digestService)\.ts$|^node_modules\/(vscode-jsonrpc|sql\.js|pg)\//,
      ),
      [],
    );
  });
});
