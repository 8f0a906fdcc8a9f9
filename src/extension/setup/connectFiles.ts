// What the two connect commands (Connect Other Agents, Connect Agent Hooks) share: the Node the
// written files run, reading a workspace file that may not exist yet, and the read-only Markdown
// summary they open (no "save changes?" when it is closed), and the folder they write into.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { resolveNode } from '../connect/agentConfigs';
import type { Own } from '../feature';

/** How the written files run Node: a Node 20+ on PATH, else the editor's own runtime (resolveNode). */
export function agentNode(): ReturnType<typeof resolveNode> {
  return resolveNode({
    pathEnv: process.env.PATH,
    execPath: process.execPath,
    electron: Boolean(process.versions.electron),
    versionOf: (command) => {
      const r = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 5000, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
      return r.status === 0 ? r.stdout : undefined;
    },
  });
}

/** The file's text, or undefined when it does not exist. */
export function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Registers a read-only document under `scheme` (kept until the feature is disposed); the function shows `markdown` in it. */
export function summaryDocument(own: Own, scheme: string, docPath: string): (markdown: string) => Promise<void> {
  let latest = '';
  const changed = own(new vscode.EventEmitter<vscode.Uri>());
  own(vscode.workspace.registerTextDocumentContentProvider(scheme, { onDidChange: changed.event, provideTextDocumentContent: () => latest }));
  return async (markdown) => {
    latest = markdown;
    const uri = vscode.Uri.from({ scheme, path: docPath });
    changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    await vscode.window.showTextDocument(doc, { preview: true });
  };
}

/** The workspace folder a setup command writes into, or undefined after asking the person to open one. */
export function folderToWrite(what: string): vscode.Uri | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (folder?.scheme === 'file') return folder;
  void vscode.window.showWarningMessage(`Agent Progress: open a folder first; ${what} written into the workspace folder.`);
  return undefined;
}
