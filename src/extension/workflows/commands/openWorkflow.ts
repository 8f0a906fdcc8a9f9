// Agent Progress: Open Workflow: the workflow's page (plan, tasks, files changed, timeline), from
// a tree item, a notification's Open button, the status bar, or the palette (a quick pick).

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { WorkflowsDeps } from '../feature';
import type { WorkflowRef } from '../workflowItems';

/** A tree node, a {workflowId, taskId} reference, or an id string (workflow or task). */
function workflowRef(arg: unknown): WorkflowRef | string | undefined {
  if (typeof arg === 'string' && arg.trim() !== '') return arg.trim();
  if (!arg || typeof arg !== 'object') return undefined;
  const o = arg as { kind?: string; workflow?: { id: string }; task?: { id: string; workflowId: string }; workflowId?: unknown; taskId?: unknown };
  if (o.kind === 'workflow' && o.workflow) return { workflowId: o.workflow.id };
  if (o.task && typeof o.task.workflowId === 'string') return { workflowId: o.task.workflowId, taskId: o.task.id };
  if (typeof o.workflowId === 'string') return { workflowId: o.workflowId, ...(typeof o.taskId === 'string' ? { taskId: o.taskId } : {}) };
  return undefined;
}

async function pickWorkflow(deps: WorkflowsDeps): Promise<WorkflowRef | undefined> {
  const service = await deps.host.workflow();
  const { workflows } = await service.listWorkflows({ limit: 200 });
  if (workflows.length === 0) {
    void vscode.window.showInformationMessage('No workflow has been tracked in this ledger yet.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    workflows.map((w) => ({
      label: w.name,
      description: `${w.projectId} · ${w.taskCount} task${w.taskCount === 1 ? '' : 's'}${w.running ? `, ${w.running} running` : ''}`,
      detail: w.description ?? undefined,
      id: w.id,
    })),
    { title: 'Open Workflow', placeHolder: 'Choose a workflow', matchOnDescription: true },
  );
  return picked ? { workflowId: picked.id } : undefined;
}

export function openWorkflow(deps: WorkflowsDeps): CommandHandler {
  return async (arg?: unknown) => {
    let ref = workflowRef(arg);
    if (typeof ref === 'string') {
      const service = await deps.host.workflow();
      const kind = await service.identify(ref);
      if (kind === 'task') {
        const task = await service.task(ref);
        ref = { workflowId: task.workflowId, taskId: task.id };
      } else if (kind === 'workflow') {
        ref = { workflowId: ref };
      } else {
        void vscode.window.showErrorMessage(`No workflow or tracked task has the id ${ref}.`);
        return;
      }
    }
    ref ??= await pickWorkflow(deps);
    if (!ref) return;
    await deps.workflowPanels.show(ref.workflowId, ref.taskId);
  };
}
