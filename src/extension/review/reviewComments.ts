// The current review's threads as VS Code comment threads on the lines they point to
// (vscode.comments). A person can start a thread, reply, resolve and reopen from the comment UI;
// each of those writes the ledger, and the threads follow the ledger (any process) by themselves.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable } from '../disposable';
import type { ReviewThread } from '../../core/review/types';
import type { ReviewModel } from './reviewModel';

export const COMMENT_CONTROLLER_ID = 'agentProgress.review';

function markdown(text: string): vscode.MarkdownString {
  // Agents' text: Markdown shown, never trusted (no command links, no HTML).
  const md = new vscode.MarkdownString(text, false);
  md.isTrusted = false;
  md.supportHtml = false;
  return md;
}

export class ReviewComments extends Disposable {
  readonly controller: vscode.CommentController;
  private readonly threads = new Map<string, vscode.CommentThread>();
  private readonly ids = new WeakMap<vscode.CommentThread, string>();

  constructor(
    private readonly model: ReviewModel,
    private readonly workspaceRoot: () => string | undefined,
  ) {
    super();
    this.controller = this.register(vscode.comments.createCommentController(COMMENT_CONTROLLER_ID, 'Agent Progress Review'));
    this.controller.options = { prompt: 'Reply, or comment on this line for the review…', placeHolder: 'Saved in the review ledger; agents read it with get_threads' };
    this.controller.commentingRangeProvider = {
      provideCommentingRanges: (document) => {
        // New threads only while a review runs: no comment gutter on every file otherwise.
        if (this.model.active?.run.finishedAt !== null) return [];
        if (document.uri.scheme !== 'file' || !this.relative(document.uri)) return [];
        return [new vscode.Range(0, 0, Math.max(0, document.lineCount - 1), 0)];
      },
    };
    this.register(() => {
      for (const t of this.threads.values()) t.dispose();
      this.threads.clear();
    });
    this.register(model.onDidChange(() => this.sync()));
  }

  /** A file's path from the workspace root with /, or undefined outside it. */
  relative(uri: vscode.Uri): string | undefined {
    const root = this.workspaceRoot();
    if (!root) return undefined;
    const rel = path.relative(root, uri.fsPath);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    return rel.split(path.sep).join('/');
  }

  /** The comment thread showing a ledger thread (tests and openReviewThread use it). */
  threadFor(id: string): vscode.CommentThread | undefined {
    return this.threads.get(id);
  }

  /** The ledger id of a comment thread this controller shows. */
  idOf(thread: vscode.CommentThread): string | undefined {
    return this.ids.get(thread);
  }

  /** Brings the comment threads in line with the current run's threads. */
  sync(): void {
    const root = this.workspaceRoot();
    const wanted = new Map<string, ReviewThread>();
    for (const t of this.model.active?.threads ?? []) if (t.file && t.line && root) wanted.set(t.id, t);
    for (const [id, shown] of this.threads) {
      if (!wanted.has(id)) {
        shown.dispose();
        this.threads.delete(id);
      }
    }
    for (const t of wanted.values()) {
      const uri = vscode.Uri.file(path.join(root!, ...t.file!.split('/')));
      const range = new vscode.Range(t.line! - 1, 0, (t.endLine ?? t.line!) - 1, 0);
      let shown = this.threads.get(t.id);
      if (shown && shown.uri.toString() !== uri.toString()) {
        shown.dispose();
        shown = undefined;
      }
      if (!shown) {
        shown = this.controller.createCommentThread(uri, range, []);
        shown.collapsibleState = t.status === 'open' ? vscode.CommentThreadCollapsibleState.Expanded : vscode.CommentThreadCollapsibleState.Collapsed;
        this.threads.set(t.id, shown);
        this.ids.set(shown, t.id);
      } else if (!shown.range?.isEqual(range)) {
        shown.range = range;
      }
      shown.label = t.status === 'open' ? 'Review thread' : 'Review thread (resolved)';
      shown.contextValue = `reviewThread.${t.status}`;
      shown.canReply = t.status === 'open';
      shown.state = t.status === 'open' ? vscode.CommentThreadState.Unresolved : vscode.CommentThreadState.Resolved;
      shown.comments = t.comments.map((c) => ({
        body: markdown(c.body),
        mode: vscode.CommentMode.Preview,
        author: { name: c.author },
        timestamp: new Date(c.createdAt),
        contextValue: 'reviewComment',
      }));
    }
  }
}
