// Agent Progress: Digest Sessions Now: digests this workspace's agent sessions at once, idle or
// not (a session already digested gets a follow-up only if it grew). Offers to turn digests on.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { DigestRun } from '../../../core/digests/digestService';
import { SETTINGS_SECTION } from '../../commandIds';
import type { SessionsDeps } from '../feature';
import { readDigestSettings } from '../../settings';

export function digestSessions(deps: SessionsDeps): CommandHandler {
  return async (): Promise<DigestRun | undefined> => {
    if (!vscode.workspace.workspaceFolders?.[0]) {
      void vscode.window.showWarningMessage('Agent Progress: open a folder first; digests are of the agent sessions that ran in it.');
      return undefined;
    }
    if (!readDigestSettings().enabled) {
      const answer = await vscode.window.showInformationMessage(
        'Session digests are off for this workspace. Turn them on?',
        { modal: true, detail: 'Each agent session of this workspace gets one progress entry, read from its transcript on this machine, secrets redacted.' },
        'Turn On',
      );
      if (answer !== 'Turn On') return undefined;
      await vscode.workspace.getConfiguration(SETTINGS_SECTION).update('sessionDigests.enabled', true, vscode.ConfigurationTarget.Workspace);
    }
    const run = await deps.digests.tick('all');
    if (!run) return undefined;
    if (!run.policy.enabled) void vscode.window.showWarningMessage(`Agent Progress: session digests are off: ${run.policy.reason ?? ''}`);
    else if (run.written.length > 0)
      void vscode.window.setStatusBarMessage(`Agent Progress: ${run.written.length} session digest${run.written.length === 1 ? '' : 's'} written`, 4000);
    else void vscode.window.setStatusBarMessage('Agent Progress: every session of this workspace is digested', 4000);
    return run;
  };
}
