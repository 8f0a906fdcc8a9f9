// The layer boundaries of ARCHITECTURE.md are lint errors: this proves the rules fire.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const root = path.resolve(__dirname, '..', '..');

async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId?.endsWith('no-restricted-imports')).map((m) => m.message);
}

describe('layer boundaries', function () {
  this.timeout(30_000);

  it('refuses vscode, the MCP SDK and our other layers in src/core', async () => {
    assert.match((await boundaryErrors('src/core/x.ts', "import * as vscode from 'vscode';\nexport const a = vscode;\n"))[0] ?? '', /plain Node: no vscode/);
    assert.match(
      (await boundaryErrors('src/core/x.ts', "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport const a = McpServer;\n"))[0] ?? '',
      /knows nothing of MCP/,
    );
    assert.match(
      (await boundaryErrors('src/core/storage/x.ts', "import { createServer } from '../../mcp/server';\nexport const a = createServer;\n"))[0] ?? '',
      /imports nothing of ours outside core/,
    );
  });

  it('keeps vscode out of the server and the CLI, and MCP out of the CLI', async () => {
    assert.equal((await boundaryErrors('src/mcp/x.ts', "import * as vscode from 'vscode';\nexport const a = vscode;\n")).length, 1);
    assert.equal((await boundaryErrors('src/cli/x.ts', "import { createServer } from '../mcp/server';\nexport const a = createServer;\n")).length, 1);
  });

  it('keeps core values out of the extension shell, which loads them lazily', async () => {
    assert.match((await boundaryErrors('src/extension/x.ts', "import { Services } from '../core/services';\nexport const a = Services;\n"))[0] ?? '', /loads core lazily/);
    assert.equal((await boundaryErrors('src/extension/x.ts', "import { z } from 'zod';\nexport const a = z;\n")).length, 1);
    assert.deepEqual(await boundaryErrors('src/extension/x.ts', "import type { Services } from '../core/services';\nexport type A = Services;\n"), []);
    assert.deepEqual(await boundaryErrors('src/extension/x.ts', "import { defaultProjectId } from '../core/projectId';\nexport const a = defaultProjectId;\n"), []);
    assert.deepEqual(await boundaryErrors('src/extension/coreBundle.ts', "export { Services } from '../core/services';\n"), []);
    assert.equal((await boundaryErrors('src/extension/x.ts', "import { createServer } from '../mcp/server';\nexport const a = createServer;\n")).length, 1);
  });

  it('allows what the layers may use', async () => {
    assert.deepEqual(await boundaryErrors('src/mcp/x.ts', "import { openLedger } from '../core/storage/openLedger';\nexport const a = openLedger;\n"), []);
    assert.deepEqual(await boundaryErrors('src/core/x.ts', "import { z } from 'zod';\nexport const a = z;\n"), []);
  });
});
