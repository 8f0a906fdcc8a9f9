// Inside a real VS Code: a workspace cannot choose the ledger, the summary endpoint or transcript
// folders (machine-scoped settings), and its agent-progress.config.json reaches the servers as
// trusted only when the workspace is trusted (issue 13 item 2).

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentProgressApi } from '../../src/extension/extension';
import { serverDefinition } from '../../src/extension/mcpServerProvider';
import { EXTENSION_ID } from './util';

describe('workspace trust and the settings a workspace may set', function () {
  this.timeout(60_000);
  let api: AgentProgressApi;
  let folder: string;

  before(async () => {
    api = await vscode.extensions.getExtension<AgentProgressApi>(EXTENSION_ID)!.activate();
    folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  });

  it('refuses a workspace value for the ledger path, the summary endpoint and transcript folders', async () => {
    const config = vscode.workspace.getConfiguration('agentProgress');
    for (const key of ['ledgerPath', 'summary.baseUrl', 'traces.claudeHome', 'databaseUrl']) {
      await assert.rejects(Promise.resolve(config.update(key, '/tmp/chosen-by-the-workspace', vscode.ConfigurationTarget.Workspace)), `${key} cannot be written to the workspace`);
      assert.equal(vscode.workspace.getConfiguration('agentProgress').inspect(key)?.workspaceValue, undefined);
    }
  });

  it("passes the workspace's agent-progress.config.json to the servers as trusted only in a trusted workspace", () => {
    const file = path.join(folder, 'agent-progress.config.json');
    fs.writeFileSync(file, JSON.stringify({ openai: { model: 'workspace-model' } }));
    try {
      const deps = { extensionPath: api.deps.context.extensionPath, version: '0.0.0', ledgerPath: api.ledgerPath, apiKeys: api.deps.apiKeys, workspaceFolder: () => folder };
      assert.equal(vscode.workspace.isTrusted, true, 'the test VS Code trusts its workspace');
      assert.equal(serverDefinition(deps, 'progress').env.AGENT_PROGRESS_CONFIG, file);
      assert.equal(serverDefinition({ ...deps, workspaceTrusted: () => false }, 'progress').env.AGENT_PROGRESS_CONFIG, undefined);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});
