// Agent Progress: Create Queue Project: a name (it is the project's id) and what it is for.

import * as vscode from 'vscode';
import { givenOrAsk } from '../../ask';
import type { CommandHandler } from '../../feature';
import { CommandIds } from '../../commandIds';
import type { QueueDeps } from '../feature';
import { EDITOR_ACTOR, showQueueError } from './queueArgs';

export function createQueueProject(deps: QueueDeps): CommandHandler {
  return async (given?: unknown) => {
    const name = await givenOrAsk(given, {
      title: 'Create Queue Project (1/2)',
      prompt: 'A name agents will use as projectId',
      placeHolder: 'email-summaries',
      validateInput: (v) =>
        v.trim() === '' ? 'Type a name' : [...v].some((ch) => ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127) ? 'A name is one line, without tabs' : undefined,
    });
    if (name === undefined || name.trim() === '') return;
    const description =
      typeof given === 'string'
        ? ''
        : await vscode.window.showInputBox({ title: 'Create Queue Project (2/2)', prompt: 'What the project is for (optional)', placeHolder: 'Summarise each inbox thread' });
    if (description === undefined) return;
    try {
      const project = await (await deps.host.queue()).createProject({ name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) }, EDITOR_ACTOR);
      deps.taskQueue.refresh();
      // Not awaited: the project exists; the notification only offers the next step.
      void vscode.window
        .showInformationMessage(`Queue project ${project.id} is ready. Agents join it with join_project or register_agent.`, 'Add Task', 'Import Tasks…')
        .then((pick) => {
          if (pick === 'Add Task') void vscode.commands.executeCommand(CommandIds.addTask, project.id);
          else if (pick === 'Import Tasks…') void vscode.commands.executeCommand(CommandIds.importTasks, project.id);
        });
    } catch (err) {
      showQueueError(deps.logger, 'Could not create the project', err);
    }
  };
}
