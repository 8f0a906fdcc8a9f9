// Copy ID (an entry's context menu), for pasting into a prompt: "see entry x7k9m2p4q1w3".

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import { entryRef } from '../deps';

export function registerCopyEntryId(): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.copyEntryId, async (arg: unknown) => {
    const ref = entryRef(arg);
    if (!ref) return;
    await vscode.env.clipboard.writeText(ref.id);
    vscode.window.setStatusBarMessage(`Copied entry id ${ref.id}`, 2000);
  });
}
