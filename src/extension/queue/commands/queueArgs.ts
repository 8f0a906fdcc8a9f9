// What queue commands share: the editor as an actor, picking a project, showing an error.

import * as vscode from 'vscode';
import type { QueueService } from '../../../core/queue/queueService';
import type { Actor } from '../../../core/queue/types';
import { isLedgerError } from '../../../core/errors';
import type { Logger } from '../../../core/log';
import { projectIdOf } from '../taskQueueItems';

export { projectIdOf, taskIdOf } from '../taskQueueItems';

/** A person acting from the editor, as the audit log names them. */
export const EDITOR_ACTOR: Actor = { kind: 'operator', name: 'editor' };

/** The project given, or one the person picks among the open ones; undefined when dismissed. */
export async function pickQueueProject(queue: QueueService, given: unknown, title: string): Promise<string | undefined> {
  const id = projectIdOf(given);
  if (id) return id;
  const projects = await queue.listProjects({});
  if (projects.length === 0) {
    void vscode.window.showInformationMessage('There is no open queue project yet.', 'Create Queue Project').then((pick) => {
      if (pick) void vscode.commands.executeCommand('agentProgress.createQueueProject');
    });
    return undefined;
  }
  if (projects.length === 1) return projects[0]!.id;
  const picked = await vscode.window.showQuickPick(
    projects.map((p) => ({ label: p.id, description: `${p.stats.queuedTasks} queued · ${p.stats.runningTasks} running`, detail: p.description || undefined, id: p.id })),
    { title, placeHolder: 'Queue project' },
  );
  return picked?.id;
}

/** Shows a ledger error as it is (it says what to do), anything else with a prefix; logs both. */
export function showQueueError(logger: Logger, what: string, err: unknown): void {
  const message = isLedgerError(err) ? err.message : `${what}: ${err instanceof Error ? err.message : String(err)}`;
  logger.warn(message);
  void vscode.window.showErrorMessage(message);
}
