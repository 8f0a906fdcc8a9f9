// Copies a tracked task's id (a Workflows item's context menu), to hand it to an agent.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';

export function copyTrackedTaskId(): CommandHandler {
  return async (arg?: unknown) => {
    const id = typeof arg === 'string' ? arg : arg && typeof arg === 'object' ? (arg as { task?: { id?: unknown } }).task?.id : undefined;
    if (typeof id !== 'string') return;
    await vscode.env.clipboard.writeText(id);
    void vscode.window.setStatusBarMessage(`Copied task id ${id}`, 2000);
  };
}
