// Agent Progress: Archive or Delete Old Entries…: progress entries older than the
// agentProgress.retention.days setting (or a number asked for) are archived (recoverable with
// Restore Archived Entries) or deleted, as agentProgress.retention.action says. A modal says how
// many first; the entries are written to a JSON file (default beside the ledger, or one the
// person picks) before anything is removed.
// A script may pass { days, action, exportFile, confirmed: true } to skip the questions.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { RetentionResult } from '../../../core/transfer/transferService';
import type { LedgerDeps } from '../feature';
import { readSettings } from '../../settings';
import { showLedgerFailure } from './ledgerFiles';

interface RetentionArgs {
  days?: number;
  action?: 'archive' | 'delete';
  exportFile?: string;
  confirmed?: boolean;
}

export function applyRetention(deps: LedgerDeps): CommandHandler {
  return async (given?: unknown): Promise<RetentionResult | undefined> => {
    const args: RetentionArgs = given && typeof given === 'object' && !(given instanceof vscode.Uri) ? (given as RetentionArgs) : {};
    const settings = readSettings();
    try {
      let days = args.days ?? (settings.retentionDays > 0 ? settings.retentionDays : undefined);
      if (days === undefined) {
        const typed = await vscode.window.showInputBox({
          title: 'Agent Progress: archive or delete old entries',
          prompt: `Entries older than how many days? (Set agentProgress.retention.days to skip this question.) They will be ${settings.retentionAction}d.`,
          value: '90',
          validateInput: (v) => (/^\d+$/.test(v.trim()) && Number(v) >= 1 ? undefined : 'A whole number of days, 1 or more'),
        });
        if (typed === undefined) return undefined;
        days = Number(typed.trim());
      }
      const action = args.action ?? settings.retentionAction;
      const transfer = await deps.host.transfer();
      const plan = await transfer.planRetention({ days, action });
      if (plan.count === 0) {
        void vscode.window.showInformationMessage(`Agent Progress: no entries are older than ${days} days; nothing to ${action}.`);
        return { ...plan, removed: 0 };
      }
      let exportFile = args.exportFile ?? transfer.defaultExportPath(`before-${action}`);
      if (!args.confirmed) {
        const verb = action === 'archive' ? 'Archive' : 'Delete';
        const what = `${plan.count} ${plan.count === 1 ? 'entry' : 'entries'} older than ${days} days`;
        const detail =
          action === 'archive'
            ? `They leave the Progress Log, search and get_context, and come back with Agent Progress: Restore Archived Entries. They are first exported to ${exportFile}.`
            : `They are removed for good. They are first exported to ${exportFile}, which Agent Progress: Import Ledger brings back.`;
        const chooseFile = 'Export Elsewhere\u2026';
        const pick = await vscode.window.showWarningMessage(`${verb} ${what}?`, { modal: true, detail }, verb, chooseFile);
        if (pick === undefined) return undefined;
        if (pick === chooseFile) {
          const picked = await vscode.window.showSaveDialog({
            title: `Export the ${what} before they are ${action}d`,
            defaultUri: vscode.Uri.file(exportFile),
            filters: { 'Ledger export': ['json'] },
            saveLabel: `Export and ${verb}`,
          });
          if (!picked) return undefined;
          exportFile = picked.fsPath;
        }
      }
      const result = await transfer.applyRetention(plan, { exportFile });
      deps.progressLog.refresh();
      void vscode.window.showInformationMessage(
        `Agent Progress: ${action}d ${result.removed} ${result.removed === 1 ? 'entry' : 'entries'} older than ${days} days (exported first to ${result.exportFile}).`,
      );
      return result;
    } catch (err) {
      showLedgerFailure(deps.logger, 'Retention did not run', err);
      return undefined;
    }
  };
}
