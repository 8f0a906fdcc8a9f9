// Agent Progress: Import Ledger…: adds a file written by Export Ledger (or by a retention run) to
// this ledger in one transaction: all of it, or nothing when a record's id is already here or the
// file is of another version.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { LedgerDeps } from '../feature';
import { fileArg, showLedgerFailure } from './ledgerFiles';

export function importLedger(deps: LedgerDeps): CommandHandler {
  return async (given?: unknown): Promise<Record<string, number> | undefined> => {
    try {
      let file = fileArg(given);
      if (!file) {
        const picked = await vscode.window.showOpenDialog({
          title: 'Import an Agent Progress ledger export',
          canSelectMany: false,
          filters: { 'Ledger export': ['json'] },
          openLabel: 'Import',
        });
        file = picked?.[0]?.fsPath;
      }
      if (!file) return undefined;
      const transfer = await deps.host.transfer();
      const { counts } = await transfer.importFile(file);
      const parts = Object.entries(counts.imported)
        .filter(([, n]) => n > 0)
        .map(([name, n]) => `${n} ${name}`);
      void vscode.window.showInformationMessage(`Imported ${parts.length > 0 ? parts.join(', ') : 'nothing'} from ${file}.`);
      return counts.imported;
    } catch (err) {
      showLedgerFailure(deps.logger, 'Nothing was imported', err);
      return undefined;
    }
  };
}
