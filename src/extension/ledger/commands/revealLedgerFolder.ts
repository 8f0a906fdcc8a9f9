// Agent Progress: Reveal Ledger Folder: the folder holding the ledger file, its journal and the
// exports, in the system's file manager (desktop), else its path to copy or open in a window.

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { LedgerDeps } from '../feature';

export function revealLedgerFolder(deps: LedgerDeps): CommandHandler {
  return async (): Promise<string> => {
    const file = vscode.Uri.file(deps.host.ledgerPath);
    const folder = path.dirname(deps.host.ledgerPath);
    // revealFileInOS exists only where the window runs on the ledger's own machine.
    if (vscode.env.uiKind === vscode.UIKind.Desktop && vscode.env.remoteName === undefined) {
      await vscode.commands.executeCommand('revealFileInOS', file);
      return folder;
    }
    const copy = 'Copy Path';
    const open = 'Open Folder in New Window';
    void vscode.window.showInformationMessage(`Agent Progress: the ledger is in ${folder}`, copy, open).then(async (pick) => {
      if (pick === copy) await vscode.env.clipboard.writeText(folder);
      if (pick === open) await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(folder), { forceNewWindow: true });
    });
    return folder;
  };
}
