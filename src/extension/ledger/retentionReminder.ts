// When agentProgress.retention.days is set, the first time the Progress Log is shown in a window
// this says how many entries are older than that, with a button that runs Archive or Delete Old
// Entries (which asks again, modally, and exports first). Never removes anything by itself.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import type { LedgerDeps } from './feature';
import { readSettings } from '../settings';

export function registerRetentionReminder(deps: Pick<LedgerDeps, 'host' | 'logger' | 'progressLogView'>): vscode.Disposable {
  let checked = false;
  const check = async (): Promise<void> => {
    const { retentionDays: days, retentionAction: action } = readSettings();
    if (checked || days === 0) return;
    checked = true;
    try {
      const plan = await (await deps.host.transfer()).planRetention({ days, action });
      if (plan.count === 0) return;
      const verb = action === 'archive' ? 'Archive' : 'Delete';
      const pick = await vscode.window.showInformationMessage(
        `Agent Progress: ${plan.count} ${plan.count === 1 ? 'entry is' : 'entries are'} older than ${days} days (agentProgress.retention.days).`,
        `${verb}\u2026`,
      );
      if (pick) await vscode.commands.executeCommand(CommandIds.applyRetention);
    } catch (err) {
      deps.logger.warn(`Could not count the entries older than ${days} days: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  if (deps.progressLogView.visible) void check();
  return deps.progressLogView.onDidChangeVisibility((e) => {
    if (e.visible) void check();
  });
}
