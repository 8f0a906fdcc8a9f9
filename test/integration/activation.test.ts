// Inside a real VS Code: the extension of this repository is loaded, activates, and registers
// every command it contributes.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentProgressApi } from '../../src/extension/extension';

// Bundled into out/integration/: the repository is two folders up.
const root = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  publisher: string;
  name: string;
  contributes: { commands: { command: string }[] };
};
const extensionId = `${pkg.publisher}.${pkg.name}`;

describe('activation', () => {
  it(`finds ${extensionId}, loaded from this repository`, () => {
    const ext = vscode.extensions.getExtension(extensionId);
    assert.ok(ext, `${extensionId} is not among ${vscode.extensions.all.length} extensions`);
    assert.equal(fs.realpathSync(ext.extensionPath), fs.realpathSync(root));
  });

  it('activates and returns its API', async () => {
    const ext = vscode.extensions.getExtension<AgentProgressApi>(extensionId);
    assert.ok(ext);
    const api = await ext.activate();
    assert.equal(ext.isActive, true);
    assert.equal(path.basename(api.ledgerPath), 'data.db');
    assert.ok(api.activationMs >= 0);
    // The first test file to run in this extension host: nothing has used the ledger yet.
    assert.equal(api.deps.host.opened, false, 'the ledger opens on first use, not at activation');
    assert.equal(fs.existsSync(`${api.ledgerPath}.journal`), false);
  });

  it('registers every command it contributes', async () => {
    await vscode.extensions.getExtension(extensionId)?.activate();
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = pkg.contributes.commands.map((c) => c.command).filter((c) => !registered.has(c));
    assert.deepEqual(missing, []);
  });
});
