// Entry webviews: one panel per entry, showing it whole with its summary, a button that asks for a
// summary when none is cached, and live updates when any process changes the ledger.

import * as vscode from 'vscode';
import { isLedgerError } from '../../../core/errors';
import type { Logger } from '../../../core/log';
import type { LogEntry } from '../../../core/progress/types';
import type { EntryView, HostToEntry } from '../../../shared/entryProtocol';
import { CommandIds } from '../../commandIds';
import { loadCore } from '../../core';
import type { LedgerConnection } from '../../ledgerConnection';
import { webviewHtml, webviewOptions } from '../webviewHtml';

export const ENTRY_VIEW_TYPE = 'agentProgress.entry';

/** The session a digest entry names in its last line, if it is one. */
export function digestSessionOf(entry: Pick<LogEntry, 'tags' | 'content'>): string | null {
  if (!entry.tags.some((t) => t.toLowerCase() === 'auto')) return null;
  const m = /Session (?:claude_code|codex|gemini|vscode_copilot) `([^`\s]{1,200})`, part \d+, events \d+-\d+: drill in/.exec(entry.content.slice(-600));
  return m ? m[1]! : null;
}

function toView(entry: LogEntry): EntryView {
  return {
    sessionId: digestSessionOf(entry),
    id: entry.id,
    projectId: entry.projectId,
    title: entry.title,
    content: entry.content,
    summary: entry.summary,
    summarySource: entry.summarySource,
    createdAt: entry.createdAt,
    tags: entry.tags,
    agentId: entry.agentId,
  };
}

interface OpenPanel {
  panel: vscode.WebviewPanel;
  entry: EntryView | undefined;
  summarising: boolean;
  error: string | undefined;
}

export class EntryPanels implements vscode.Disposable {
  private readonly open = new Map<string, OpenPanel>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: LedgerConnection,
    private readonly logger: Logger,
  ) {
    this.subscription = host.onDidChange(() => {
      for (const [id, state] of this.open) if (!state.summarising) void this.reload(id, state);
    });
  }

  /** The panels open now, by entry id (tests look at them). */
  get openIds(): string[] {
    return [...this.open.keys()];
  }

  async show(id: string, projectId?: string, options: { summarise?: boolean } = {}): Promise<void> {
    let entry: LogEntry;
    try {
      entry = await (await this.host.progress()).showEntry(id, projectId);
    } catch (err) {
      void vscode.window.showErrorMessage(isLedgerError(err) ? err.message : `Could not open entry ${id}: ${String(err)}`);
      return;
    }
    let state = this.open.get(entry.id);
    if (state) {
      state.panel.reveal();
    } else {
      const panel = vscode.window.createWebviewPanel(ENTRY_VIEW_TYPE, entry.title, vscode.ViewColumn.Active, webviewOptions(this.extensionUri));
      panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.svg');
      panel.webview.html = webviewHtml({
        webview: panel.webview,
        extensionUri: this.extensionUri,
        title: entry.title,
        script: ['dist', 'webview', 'entry.js'],
        styles: [['media', 'entry.css']],
      });
      state = { panel, entry: toView(entry), summarising: false, error: undefined };
      const current = state;
      this.open.set(entry.id, current);
      panel.onDidDispose(() => this.open.delete(entry.id));
      panel.webview.onDidReceiveMessage((raw: unknown) => this.onMessage(entry.id, current, raw));
    }
    state.entry = toView(entry);
    this.post(state);
    if (options.summarise) await this.summarise(entry.id, state);
  }

  private async onMessage(id: string, state: OpenPanel, raw: unknown): Promise<void> {
    const parsed = loadCore().entryToHost.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(`Ignored a malformed message from the entry view of ${id}`);
      return;
    }
    switch (parsed.data.type) {
      case 'ready':
        this.post(state);
        return;
      case 'summarise':
        await this.summarise(id, state);
        return;
      case 'openSession':
        if (state.entry?.sessionId) await vscode.commands.executeCommand(CommandIds.openAgentSessionById, state.entry.sessionId);
        return;
      case 'copyId':
        await vscode.env.clipboard.writeText(id);
        void vscode.window.setStatusBarMessage(`Copied entry id ${id}`, 2000);
        return;
    }
  }

  private async summarise(id: string, state: OpenPanel): Promise<void> {
    if (!state.entry || state.summarising) return;
    state.summarising = true;
    state.error = undefined;
    this.post(state);
    try {
      const out = await (await this.host.progress()).getContext({ projectId: state.entry.projectId, id });
      state.entry = { ...state.entry, summary: out.summary, summarySource: out.summarySource ?? null };
      if (out.summarySource === 'fallback') state.error = 'No language model answered, so this is an extract of the entry (not cached). Sign in to a chat model or set an API key to get a summary.';
    } catch (err) {
      state.error = isLedgerError(err) ? err.message : String(err);
    } finally {
      state.summarising = false;
      this.post(state);
    }
  }

  private async reload(id: string, state: OpenPanel): Promise<void> {
    try {
      const entry = await (await this.host.progress()).showEntry(id, state.entry?.projectId);
      // A fallback extract shown here is not in the ledger; keep it until a real summary arrives.
      const keepExtract = state.entry?.summarySource === 'fallback' && entry.summary === null;
      state.entry = keepExtract ? { ...toView(entry), summary: state.entry!.summary, summarySource: 'fallback' } : toView(entry);
      this.post(state);
    } catch (err) {
      if (isLedgerError(err) && err.code === 'not_found') {
        const message: HostToEntry = { type: 'missing', id, message: `Entry ${id} is no longer in the ledger.` };
        void state.panel.webview.postMessage(message);
      }
    }
  }

  private post(state: OpenPanel): void {
    if (!state.entry) return;
    state.panel.title = state.entry.title;
    const message: HostToEntry = { type: 'entry', entry: state.entry, summarising: state.summarising, ...(state.error ? { error: state.error } : {}) };
    void state.panel.webview.postMessage(message);
  }

  dispose(): void {
    this.subscription.dispose();
    for (const state of this.open.values()) state.panel.dispose();
    this.open.clear();
  }
}
