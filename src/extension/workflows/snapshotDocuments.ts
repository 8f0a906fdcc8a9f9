// The left side of a changed file's diff: the file as it was when its task started, served under
// its own URI scheme from the task's snapshot (git: the snapshot's tree, read through core). A
// file that did not exist then, or a checksum snapshot that kept no content, reads as a note.

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../core/log';
import { SNAPSHOT_SCHEME } from '../commandIds';
import type { LedgerConnection } from '../ledgerConnection';
import type { FileChangeRef } from './workflowItems';

/** A snapshot document's address: the task, the file's path in the snapshot, and what to show. */
export function snapshotUri(taskId: string, file: string, side: 'start' | 'empty'): vscode.Uri {
  // The path keeps the file's name and extension, so the editor picks its language.
  return vscode.Uri.from({ scheme: SNAPSHOT_SCHEME, path: `/${file}`, query: new URLSearchParams({ task: taskId, file, side }).toString() });
}

export function parseSnapshotUri(uri: vscode.Uri): { taskId: string; file: string; side: 'start' | 'empty' } | undefined {
  const q = new URLSearchParams(uri.query);
  const taskId = q.get('task');
  const file = q.get('file');
  const side = q.get('side');
  if (!taskId || file === null || (side !== 'start' && side !== 'empty')) return undefined;
  return { taskId, file, side };
}

function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

export class SnapshotDocuments implements vscode.TextDocumentContentProvider {
  constructor(
    private readonly host: LedgerConnection,
    private readonly logger: Logger,
  ) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const ref = parseSnapshotUri(uri);
    if (!ref) return '';
    if (ref.side === 'empty') return '';
    try {
      const got = await (await this.host.workflow()).contentAtStart(ref.taskId, ref.file);
      switch (got.kind) {
        case 'content':
          return looksBinary(got.bytes) ? `(binary file of ${got.bytes.length.toLocaleString('en-US')} bytes at the start of the task; not shown)\n` : got.bytes.toString('utf8');
        case 'absent':
          return '';
        case 'unavailable':
          return `(The content of ${ref.file} at the start of the task cannot be shown: ${got.reason}.)\n`;
      }
    } catch (err) {
      this.logger.warn(`Could not read ${ref.file} from the snapshot of task ${ref.taskId}: ${String(err)}`);
      return `(Could not read ${ref.file} from the task's snapshot: ${err instanceof Error ? err.message : String(err)})\n`;
    }
  }
}

/** The two sides and the title of a changed file's diff: as it was at the start of the task, and now. */
export function diffSides(file: FileChangeRef, exists: (absolute: string) => boolean): { left: vscode.Uri; right: vscode.Uri; title: string } {
  const left = file.status === 'added' ? snapshotUri(file.taskId, file.path, 'empty') : snapshotUri(file.taskId, file.from ?? file.path, 'start');
  const absolute = file.root ? path.join(file.root, ...file.path.split('/')) : undefined;
  const right = absolute && exists(absolute) ? vscode.Uri.file(absolute) : snapshotUri(file.taskId, file.path, 'empty');
  const name = path.posix.basename(file.path);
  const what = file.status === 'renamed' && file.from ? `${path.posix.basename(file.from)} → ${name}` : name;
  return { left, right, title: `${what} (start of "${file.taskName}" ↔ now)` };
}

export function registerSnapshotDocuments(host: LedgerConnection, logger: Logger): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(SNAPSHOT_SCHEME, new SnapshotDocuments(host, logger));
}
