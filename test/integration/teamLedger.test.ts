// Inside a real VS Code: Copy Ledger To or From PostgreSQL, run as a script would run it, copies
// the workspace's ledger into a throwaway PostgreSQL database with its counts checked, refuses to
// copy into it again without force, and never shows the password. Skipped (with a message) when
// PostgreSQL is not installed on this machine, except on CI, where that fails.

import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import { openLedger } from '../../src/core/storage/openLedger';
import { CommandIds } from '../../src/extension/commandIds';
import type { AgentProgressApi } from '../../src/extension/extension';
import { PG_TEST_PASSWORD, usePostgres } from '../helpers/postgres';
import { EXTENSION_ID } from './util';

const run = promisify(execFile);

describe('Team ledger: Copy Ledger To or From PostgreSQL', function () {
  this.timeout(180_000);
  let api: AgentProgressApi;
  let url: string;

  // Skips without PostgreSQL on this machine; on CI (which installs it) a missing server fails instead.
  const server = usePostgres();

  before(async function () {
    url = await server().createDatabase();
    const extension = vscode.extensions.getExtension<AgentProgressApi>(EXTENSION_ID)!;
    api = await extension.activate();
    const cli = path.join(extension.extensionPath, 'dist', 'cli.js');
    await run(process.execPath, [cli, 'log', '--project', 'itest-team', '--title', 'Before the team ledger', '--content', 'Written to the local file.'], {
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', AGENT_PROGRESS_DB_PATH: api.ledgerPath, AGENT_PROGRESS_DATABASE_URL: '' },
    });
  });

  it('copies the workspace ledger into PostgreSQL with counts checked, then refuses a second copy without force', async () => {
    const result = await vscode.commands.executeCommand<{ total: number } | undefined>(CommandIds.copyLedger, { direction: 'toPostgres', url });
    assert.ok(result && result.total >= 1, `copied: ${JSON.stringify(result)}`);
    const ledger = await openLedger({ file: '', databaseUrl: url });
    try {
      const page = await ledger.progress.searchEntries({ projectId: 'itest-team', limit: 10 });
      assert.deepEqual(
        page.entries.map((e) => e.title),
        ['Before the team ledger'],
      );
      assert.ok(!ledger.location.includes(PG_TEST_PASSWORD));
    } finally {
      await ledger.close();
    }
    const again = await vscode.commands.executeCommand<{ total: number } | undefined>(CommandIds.copyLedger, { direction: 'toPostgres', url });
    assert.equal(again, undefined, 'a target that holds records is refused without force');
    const check = await openLedger({ file: '', databaseUrl: url });
    try {
      assert.equal((await check.progress.searchEntries({ projectId: 'itest-team', limit: 10 })).total, 1, 'nothing was copied twice');
    } finally {
      await check.close();
    }
  });
});
