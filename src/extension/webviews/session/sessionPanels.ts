// Agent session webviews: one panel per session with its turns as a timeline, failed tool calls
// highlighted, the health insights, sub-agents, and what agents logged in the ledger meanwhile.
// A tool call opens its event (redacted) in place; a ledger entry opens beside. Live while open.

import * as vscode from 'vscode';
import type { Logger } from '../../../core/log';
import type { SessionView } from '../../../core/traces/traceService';
import type { HostToSession, LedgerLink, SessionPage } from '../../../shared/sessionProtocol';
import { loadCore } from '../../core';
import type { TraceHost } from '../../traceHost';
import { PROVIDER_LABELS, sessionLabel } from '../../views/agentSessions/agentSessionsItems';
import type { EntryPanels } from '../entry/entryPanels';
import { webviewHtml, webviewOptions } from '../webviewHtml';

export const SESSION_VIEW_TYPE = 'agentProgress.agentSession';

function panelTitle(title: string): string {
  return title.length > 60 ? `${title.slice(0, 59)}…` : title;
}

export function toSessionPage(view: SessionView, ledger: LedgerLink[]): SessionPage {
  const s = view.session;
  return {
    session: {
      id: s.id,
      provider: s.provider,
      providerLabel: PROVIDER_LABELS[s.provider] ?? s.provider,
      kind: s.kind,
      title: sessionLabel(s),
      projectPath: s.project_path,
      start: s.start_time,
      end: s.end_time,
      durationSeconds: s.duration_seconds,
      turns: s.turn_count,
      toolCalls: s.tool_calls,
      failedToolCalls: s.failed_tool_calls,
      tokens: s.total_tokens,
      score: s.score,
      models: s.models,
      gitBranch: s.git_branch,
    },
    parentId: s.parent_id,
    children: view.children.map((c) => ({ id: c.id, kind: c.kind, title: sessionLabel(c), toolCalls: c.tool_calls, failedToolCalls: c.failed_tool_calls })),
    insights: view.analysis.insights.map((i) => ({ severity: i.severity, lens: i.lens, message: i.message, turnIndex: i.turn_index, eventIndex: i.event_index ?? null, impact: i.impact })),
    ledger,
    turns: view.turns.map((t) => ({
      ...t,
      steps: t.steps.map((st) => ({ ...st, tools: st.tools.map((c) => ({ ...c, status: c.status as 'ok' | 'error' | 'cancelled' | 'pending' })) })),
    })),
    moreTurns: view.truncatedTurns,
    malformedLines: view.malformedLines,
  };
}

interface OpenPanel {
  panel: vscode.WebviewPanel;
  page: SessionPage | undefined;
  focusEvent: number | undefined;
  watching: vscode.Disposable;
}

export class SessionPanels implements vscode.Disposable {
  private readonly open = new Map<string, OpenPanel>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly traces: TraceHost,
    private readonly entries: EntryPanels,
    private readonly logger: Logger,
  ) {
    this.subscription = traces.onDidChange(() => {
      for (const [id, state] of this.open) void this.reload(id, state);
    });
  }

  /** The panels open now, by session id (tests look at them). */
  get openIds(): string[] {
    return [...this.open.keys()];
  }

  /** The page a panel shows now (tests look at it). */
  pageOf(id: string): SessionPage | undefined {
    return this.open.get(id)?.page;
  }

  /** Opens (or reveals) a session's page; `focusEvent` scrolls to and opens that event. */
  async show(idOrPrefix: string, options: { focusEvent?: number; beside?: boolean } = {}): Promise<boolean> {
    let page: SessionPage;
    try {
      page = await this.load(idOrPrefix);
    } catch (err) {
      void vscode.window.showErrorMessage(`Agent Progress: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
    const id = page.session.id;
    let state = this.open.get(id);
    if (state) {
      state.panel.reveal();
    } else {
      const column = options.beside ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active;
      const panel = vscode.window.createWebviewPanel(SESSION_VIEW_TYPE, panelTitle(page.session.title), column, { ...webviewOptions(this.extensionUri), retainContextWhenHidden: false });
      panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.svg');
      panel.webview.html = webviewHtml({ webview: panel.webview, extensionUri: this.extensionUri, title: page.session.title, script: ['dist', 'webview', 'session.js'], styles: [['media', 'session.css']] });
      state = { panel, page, focusEvent: undefined, watching: this.traces.watch() };
      const current = state;
      this.open.set(id, current);
      panel.onDidDispose(() => {
        current.watching.dispose();
        this.open.delete(id);
      });
      panel.webview.onDidReceiveMessage((raw: unknown) => this.onMessage(id, current, raw));
    }
    state.page = page;
    state.focusEvent = options.focusEvent;
    this.post(state);
    return true;
  }

  private async load(idOrPrefix: string): Promise<SessionPage> {
    const service = this.traces.service;
    const view = await service.sessionView(idOrPrefix);
    let ledger: LedgerLink[] = [];
    try {
      const indexed = service.index.get(view.session.id);
      if (indexed) ledger = await service.ledgerFor(indexed, 50);
    } catch (err) {
      this.logger.warn(`Ledger activity for session ${view.session.id} unavailable: ${err instanceof Error ? err.message : String(err)}`);
    }
    return toSessionPage(view, ledger);
  }

  private async onMessage(id: string, state: OpenPanel, raw: unknown): Promise<void> {
    const parsed = loadCore().sessionToHost.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(`Ignored a malformed message from the session view of ${id}`);
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'ready':
        this.post(state);
        return;
      case 'showEvent': {
        let reply: HostToSession;
        try {
          const detail = await this.traces.service.eventPreview(id, message.eventIndex);
          reply = { type: 'event', eventIndex: message.eventIndex, detail: detail ?? null, ...(detail ? {} : { error: 'This event is no longer in the transcript.' }) };
        } catch (err) {
          reply = { type: 'event', eventIndex: message.eventIndex, detail: null, error: err instanceof Error ? err.message : String(err) };
        }
        void state.panel.webview.postMessage(reply);
        return;
      }
      case 'openSession':
        await this.show(message.id);
        return;
      case 'openEntry':
        await this.entries.show(message.id, message.projectId);
        return;
      case 'copyId':
        await vscode.env.clipboard.writeText(id);
        void vscode.window.setStatusBarMessage(`Copied session id ${id}`, 2000);
        return;
    }
  }

  private async reload(id: string, state: OpenPanel): Promise<void> {
    try {
      state.page = await this.load(id);
      state.focusEvent = undefined;
      this.post(state);
    } catch (err) {
      const message: HostToSession = { type: 'missing', message: `Session ${id} is no longer available: ${err instanceof Error ? err.message : String(err)}` };
      void state.panel.webview.postMessage(message);
    }
  }

  private post(state: OpenPanel): void {
    if (!state.page) return;
    state.panel.title = panelTitle(state.page.session.title);
    const message: HostToSession = { type: 'session', page: state.page, ...(state.focusEvent !== undefined ? { focusEvent: state.focusEvent } : {}) };
    void state.panel.webview.postMessage(message);
  }

  dispose(): void {
    this.subscription.dispose();
    for (const state of this.open.values()) state.panel.dispose();
    this.open.clear();
  }
}
