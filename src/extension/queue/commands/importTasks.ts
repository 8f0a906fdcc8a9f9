// Agent Progress: Import Tasks…: a JSON array, JSON lines or CSV file (columns typeId, instructions
// and one per template variable) added to a project, 1,000 rows per transaction; bad rows are
// reported by line and the rest are added.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import { loadCore } from '../../core';
import type { QueueDeps } from '../feature';
import { EDITOR_ACTOR, pickQueueProject, showQueueError } from './queueArgs';

const CHUNK = 1000;

export function importTasks(deps: QueueDeps): CommandHandler {
  return async (given?: unknown, fileArg?: unknown) => {
    // From the Explorer's context menu the file comes first.
    if (given instanceof vscode.Uri) [given, fileArg] = [undefined, given];
    try {
      const queue = await deps.host.queue();
      const projectId = await pickQueueProject(queue, given, 'Import tasks into which project?');
      if (!projectId) return;
      let file = fileArg instanceof vscode.Uri ? fileArg : typeof fileArg === 'string' && fileArg !== '' ? vscode.Uri.file(fileArg) : undefined;
      if (!file) {
        const picked = await vscode.window.showOpenDialog({
          title: `Import tasks into ${projectId}`,
          canSelectMany: false,
          filters: { 'Task files': ['json', 'jsonl', 'csv'] },
          openLabel: 'Import',
        });
        file = picked?.[0];
      }
      if (!file) return;
      const name = file.path.split('/').pop() ?? 'tasks';
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
      const rows = loadCore().parseTaskFile(text, name);
      if (rows.length === 0) {
        void vscode.window.showWarningMessage(`${name} holds no tasks.`);
        return;
      }
      let created = 0;
      let duplicates = 0;
      const errors: string[] = [];
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Importing ${rows.length} tasks into ${projectId}`, cancellable: false },
        async (progress) => {
          for (let start = 0; start < rows.length; start += CHUNK) {
            const out = await queue.createTasksBulk({ projectId, tasks: rows.slice(start, start + CHUNK) }, EDITOR_ACTOR);
            created += out.tasksCreated;
            duplicates += out.duplicatesIgnored;
            for (const e of out.errors) errors.push(`row ${start + e.index + 1}: ${e.message}`);
            progress.report({ increment: (Math.min(CHUNK, rows.length - start) / rows.length) * 100 });
          }
        },
      );
      deps.taskQueue.refresh();
      const summary = `Imported ${created} of ${rows.length} tasks into ${projectId}${duplicates ? `; ${duplicates} duplicates ignored` : ''}${errors.length ? `; ${errors.length} rows had errors` : ''}.`;
      deps.logger.info(summary);
      if (errors.length === 0) {
        void vscode.window.showInformationMessage(summary);
        return;
      }
      for (const e of errors.slice(0, 200)) deps.output.warn(`Import ${name}: ${e}`);
      // Not awaited: a notification stays until dismissed, and the import is done.
      void vscode.window.showWarningMessage(`${summary} First: ${errors[0]}`, 'Show All Errors').then((pick) => {
        if (pick) deps.output.show(true);
      });
    } catch (err) {
      showQueueError(deps.logger, 'Could not import the tasks', err);
    }
  };
}
