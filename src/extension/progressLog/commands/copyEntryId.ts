// Copy ID (an entry's context menu), for pasting into a prompt: "see entry x7k9m2p4q1w3".

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import { entryRef } from '../entryRef';

export function copyEntryId(): CommandHandler {
  return async (arg: unknown) => {
    const ref = entryRef(arg);
    if (!ref) return;
    await vscode.env.clipboard.writeText(ref.id);
    vscode.window.setStatusBarMessage(`Copied entry id ${ref.id}`, 2000);
  };
}
