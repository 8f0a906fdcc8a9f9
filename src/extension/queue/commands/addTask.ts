// Agent Progress: Add Task: instructions for a plain task, or a task type and its variables.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { TaskType } from '../../../core/queue/types';
import type { QueueDeps } from '../feature';
import { EDITOR_ACTOR, pickQueueProject, showQueueError } from './queueArgs';

async function pickType(types: TaskType[]): Promise<TaskType | null | undefined> {
  // The project's default type (created with its first plain task) is "Plain instructions" below.
  const named = types.filter((t) => !(t.name === 'default' && t.template === null));
  if (named.length === 0) return null;
  const picked = await vscode.window.showQuickPick(
    [
      { label: 'Plain instructions', description: 'no task type', type: null as TaskType | null },
      ...named.map((t) => ({ label: t.name, description: t.template ? `template: ${t.variables.map((v) => `{{${v}}}`).join(' ')}` : 'instructions', type: t as TaskType | null })),
    ],
    { title: 'Add Task: type', placeHolder: 'Which kind of task' },
  );
  return picked === undefined ? undefined : picked.type;
}

export function addTask(deps: QueueDeps): CommandHandler {
  return async (given?: unknown) => {
    try {
      const queue = await deps.host.queue();
      const projectId = await pickQueueProject(queue, given, 'Add Task to which project?');
      if (!projectId) return;
      const type = await pickType(await queue.listTaskTypes({ projectId }));
      if (type === undefined) return;
      const input: { projectId: string; typeId?: string; instructions?: string; variables?: Record<string, string> } = { projectId };
      if (type) input.typeId = type.id;
      if (type?.template) {
        const variables: Record<string, string> = {};
        for (const name of type.variables) {
          const value = await vscode.window.showInputBox({
            title: `Add Task: ${type.name}`,
            prompt: `Value of {{${name}}}`,
            validateInput: (v) => (v === '' ? `${name} is required by the template` : undefined),
          });
          if (value === undefined) return;
          variables[name] = value;
        }
        input.variables = variables;
      } else {
        const instructions = await vscode.window.showInputBox({
          title: 'Add Task',
          prompt: 'What the agent should do (the first agent to call request_task gets it)',
          validateInput: (v) => (v.trim() === '' ? 'Type the instructions' : undefined),
        });
        if (instructions === undefined) return;
        input.instructions = instructions.trim();
      }
      const { task, created } = await queue.addTask(input, EDITOR_ACTOR);
      deps.taskQueue.refresh();
      void vscode.window.setStatusBarMessage(created ? `Task ${task.id} queued in ${projectId}` : `An identical task is already in ${projectId} (${task.id})`, 4000);
    } catch (err) {
      showQueueError(deps.logger, 'Could not add the task', err);
    }
  };
}
