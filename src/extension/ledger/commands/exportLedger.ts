// Agent Progress: Export Ledger…: the whole ledger (every toolset) as one versioned JSON file,
// to a file the person picks (default beside the ledger). A script may pass the file.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { LedgerDeps } from '../feature';
import { fileArg, showLedgerFailure } from './ledgerFiles';

export function exportLedger(deps: LedgerDeps): CommandHandler {
  return async (given?: unknown): Promise<string | undefined> => {
    try {
      const transfer = await deps.host.transfer();
      let file = fileArg(given);
      if (!file) {
        const picked = await vscode.window.showSaveDialog({
          title: 'Export the Agent Progress ledger',
          defaultUri: vscode.Uri.file(transfer.defaultExportPath('ledger')),
          filters: { 'Ledger export': ['json'] },
          saveLabel: 'Export',
        });
        file = picked?.fsPath;
      }
      if (!file) return undefined;
      const { document, bytes } = await transfer.exportToFile(file);
      const c = document.counts;
      const message = `Exported ${c.entries} entries, ${c.tasks} tasks, ${c.workflows} workflows and ${c.reviewRuns} review runs to ${file} (${(bytes / 1024).toFixed(1)} KB).`;
      void vscode.window.showInformationMessage(message);
      return file;
    } catch (err) {
      showLedgerFailure(deps.logger, 'Could not export the ledger', err);
      return undefined;
    }
  };
}
