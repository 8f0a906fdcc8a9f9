// Opens an entry in its webview (a Progress Log item's click, or another command).

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import { CommandIds } from '../../commandIds';
import type { ProgressLogDeps } from '../feature';
import { entryRef } from '../entryRef';

export function openEntry(deps: ProgressLogDeps): CommandHandler {
  return async (arg: unknown) => {
    const ref = entryRef(arg);
    if (!ref) return vscode.commands.executeCommand(CommandIds.openEntryById);
    await deps.entries.show(ref.id, ref.projectId);
  };
}
