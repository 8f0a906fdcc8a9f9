// Agent Progress: Restore Archived Entries: brings every entry a retention run archived back into
// the Progress Log, search and get_context.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { LedgerDeps } from '../feature';
import { showLedgerFailure } from './ledgerFiles';

export function restoreArchivedEntries(deps: LedgerDeps): CommandHandler {
  return async (): Promise<number | undefined> => {
    try {
      const transfer = await deps.host.transfer();
      if ((await transfer.countArchived()) === 0) {
        void vscode.window.showInformationMessage('Agent Progress: no entries are archived.');
        return 0;
      }
      const restored = await transfer.restoreArchived();
      deps.progressLog.refresh();
      void vscode.window.showInformationMessage(`Agent Progress: restored ${restored} archived ${restored === 1 ? 'entry' : 'entries'}.`);
      return restored;
    } catch (err) {
      showLedgerFailure(deps.logger, 'Could not restore the archived entries', err);
      return undefined;
    }
  };
}
