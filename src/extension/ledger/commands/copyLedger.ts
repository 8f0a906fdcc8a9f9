// Agent Progress: Copy Ledger To or From PostgreSQL…: copies this workspace's ledger file into a
// team database (or the database into the file), with the count check of core's copyLedger. A
// target that already holds records is copied into only when the person confirms. Scripts and
// tests may pass { direction, url, force }. The password of a connection string is never shown.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import { isLedgerError } from '../../../core/errors';
import { redact } from '../../../core/log';
import { loadCore } from '../../core';
import type { LedgerDeps } from '../feature';
import { readSettings } from '../../settings';
import { showLedgerFailure } from './ledgerFiles';

type Direction = 'toPostgres' | 'fromPostgres';

interface CopyArgs {
  direction?: Direction;
  url?: string;
  force?: boolean;
}

function argsOf(given: unknown): CopyArgs {
  if (!given || typeof given !== 'object') return {};
  const g = given as Record<string, unknown>;
  return {
    ...(g.direction === 'toPostgres' || g.direction === 'fromPostgres' ? { direction: g.direction } : {}),
    ...(typeof g.url === 'string' ? { url: g.url } : {}),
    ...(g.force === true ? { force: true } : {}),
  };
}

export function copyLedger(deps: LedgerDeps): CommandHandler {
  return async (given?: unknown): Promise<{ total: number } | undefined> => {
    const args = argsOf(given);
    try {
      const file = deps.host.ledgerPath;
      let direction = args.direction;
      if (!direction) {
        const picked = await vscode.window.showQuickPick(
          [
            { label: 'This workspace\u2019s ledger \u2192 PostgreSQL', description: 'share it with a team', direction: 'toPostgres' as const },
            { label: 'PostgreSQL \u2192 this workspace\u2019s ledger', description: 'keep a local copy', direction: 'fromPostgres' as const },
          ],
          { title: 'Copy the Agent Progress ledger', placeHolder: `The ledger file: ${file}` },
        );
        direction = picked?.direction;
      }
      if (!direction) return undefined;
      // A script gives the URL (or relies on the setting); a person confirms it in an input box.
      let url = args.url ?? (given !== undefined ? readSettings().databaseUrl : undefined);
      if (url === undefined) {
        url = await vscode.window.showInputBox({
          title: 'PostgreSQL connection string',
          prompt: 'postgres://user@host:5432/database (a password may come from ~/.pgpass or PGPASSWORD instead of the string)',
          value: readSettings().databaseUrl ?? '',
          ignoreFocusOut: true,
          validateInput: (v) => (/^postgres(ql)?:\/\//i.test(v.trim()) ? undefined : 'Give a postgres:// connection string'),
        });
      }
      if (!url) return undefined;
      const [from, to] = direction === 'toPostgres' ? [file, url.trim()] : [url.trim(), file];
      const copy = (force: boolean) =>
        vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Agent Progress: copying the ledger\u2026' }, () =>
          loadCore().copyLedger({ from, to, force, logger: deps.logger }),
        );
      let result;
      try {
        result = await copy(args.force === true);
      } catch (err) {
        if (!(isLedgerError(err) && err.code === 'conflict' && /already holds records/.test(err.message)) || given !== undefined) throw err;
        const choice = await vscode.window.showWarningMessage(
          `${err.message.replace(/ Copy into an empty ledger.*$/, '')}`,
          { modal: true, detail: 'Add the records to it? A record that already exists there refuses the whole copy, and nothing is written.' },
          'Add to It',
        );
        if (choice !== 'Add to It') return undefined;
        result = await copy(true);
      }
      const parts = result.counts.filter((c) => c.copied > 0).map((c) => `${c.copied} ${c.collection}`);
      const message = `Copied ${parts.length > 0 ? parts.join(', ') : 'nothing'} from ${redact(result.from, [])} to ${redact(result.to, [])}; every count checked.`;
      deps.logger.info(message);
      void vscode.window.showInformationMessage(message);
      return { total: result.total };
    } catch (err) {
      showLedgerFailure(deps.logger, 'The ledger was not copied', err);
      return undefined;
    }
  };
}
