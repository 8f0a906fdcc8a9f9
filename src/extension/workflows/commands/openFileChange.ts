// Opens VS Code's diff editor on a file a tracked task changed: as it was when the task started
// (its snapshot) on the left, the file now on the right (a Files changed item's click).

import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { WorkflowsDeps } from '../feature';
import type { FileChangeRef } from '../workflowItems';
import { diffSides } from '../snapshotDocuments';

function fileChangeRef(arg: unknown): FileChangeRef | undefined {
  const o = (arg && typeof arg === 'object' && (arg as { kind?: string }).kind === 'file' ? (arg as { file: unknown }).file : arg) as Partial<FileChangeRef> | undefined;
  if (!o || typeof o.taskId !== 'string' || typeof o.path !== 'string' || typeof o.status !== 'string') return undefined;
  return {
    taskId: o.taskId,
    taskName: typeof o.taskName === 'string' ? o.taskName : o.taskId,
    status: o.status,
    path: o.path,
    ...(typeof o.from === 'string' ? { from: o.from } : {}),
    root: typeof o.root === 'string' ? o.root : null,
    inScope: o.inScope !== false,
  };
}

export function openFileChange(deps: WorkflowsDeps): CommandHandler {
  return async (arg: unknown) => {
    const file = fileChangeRef(arg);
    if (!file) {
      void vscode.window.showInformationMessage('Choose a file under "Files changed" of a task in the Workflows view.');
      return;
    }
    const { left, right, title } = diffSides(file, (p) => fs.existsSync(p));
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
    deps.logger.debug(`Opened the changes of ${file.path} (task ${file.taskId})`);
  };
}
