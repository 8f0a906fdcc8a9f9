// Agent session webviews: one panel per session with its turns as a timeline, failed tool calls
// highlighted, the health insights, sub-agents, and what agents logged in the ledger meanwhile.
// A tool call opens its event (redacted) in place; a ledger entry opens beside. Live while open.

import * as vscode from 'vscode';
import type { Logger } from '../../core/log';
import type { SessionView } from '../../core/traces/traceService';
import type { HostToSession, LedgerLink, SessionPage, SessionToHost } from '../../shared/sessionProtocol';
import { CommandIds } from '../commandIds';
import { loadCore } from '../core';
import { Disposable } from '../disposable';
import type { TraceHost } from '../traceHost';
import { PROVIDER_LABELS, sessionLabel } from './agentSessionsItems';
import { copyId, Pages, type OpenPage } from '../webviews/pages';

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
    insights: view.analysis.insights.map((i) => ({
      severity: i.severity,
      lens: i.lens,
      message: i.message,
      turnIndex: i.turn_index,
      eventIndex: i.event_index ?? null,
      impact: i.impact,
    })),
    ledger,
    turns: view.turns.map((t) => ({
      ...t,
      steps: t.steps.map((st) => ({ ...st, tools: st.tools.map((c) => ({ ...c, status: c.status as 'ok' | 'error' | 'cancelled' | 'pending' })) })),
    })),
    moreTurns: view.truncatedTurns,
    malformedLines: view.malformedLines,
  };
}

export type SessionPages = Pages<SessionPage, HostToSession, SessionToHost>;

export class SessionPanels extends Disposable {
  readonly pages: SessionPages;

  constructor(
    extensionUri: vscode.Uri,
    private readonly traces: TraceHost,
    private readonly logger: Logger,
  ) {
    super();
    this.pages = this.register(
      new Pages(extensionUri, logger, {
        viewType: SESSION_VIEW_TYPE,
        name: 'session',
        onDidChange: traces.onDidChange,
        load: (idOrPrefix) => this.load(idOrPrefix),
        keyOf: (page) => page.session.id,
        title: (page) => panelTitle(page.session.title),
        render: (page) => ({ type: 'session', page: page.model!, ...(typeof page.focus === 'number' ? { focusEvent: page.focus } : {}) }),
        missing: (id, err): HostToSession => ({ type: 'missing', message: `Session ${id} is no longer available: ${err instanceof Error ? err.message : String(err)}` }),
        openError: (_id, err) => `Agent Progress: ${err instanceof Error ? err.message : String(err)}`,
        whileOpen: () => traces.watch(),
        parse: (raw) => loadCore().sessionToHost.safeParse(raw),
        handle: (page, message) => this.onMessage(page, message),
      }),
    );
  }

  /** The panels open now, by session id (tests look at them). */
  get openIds(): string[] {
    return this.pages.openIds;
  }

  /** The page a panel shows now (tests look at it). */
  pageOf(id: string): SessionPage | undefined {
    return this.pages.pageOf(id);
  }

  /** Opens (or reveals) a session's page; `focusEvent` scrolls to and opens that event. */
  async show(idOrPrefix: string, options: { focusEvent?: number; beside?: boolean } = {}): Promise<boolean> {
    const page = await this.pages.show(idOrPrefix, { ...(options.focusEvent !== undefined ? { focus: options.focusEvent } : {}), ...(options.beside ? { beside: true } : {}) });
    return page !== undefined;
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

  private async onMessage(page: OpenPage<SessionPage>, message: Exclude<SessionToHost, { type: 'ready' }>): Promise<void> {
    const id = page.key;
    switch (message.type) {
      case 'showEvent': {
        let reply: HostToSession;
        try {
          const detail = await this.traces.service.eventPreview(id, message.eventIndex);
          reply = { type: 'event', eventIndex: message.eventIndex, detail: detail ?? null, ...(detail ? {} : { error: 'This event is no longer in the transcript.' }) };
        } catch (err) {
          reply = { type: 'event', eventIndex: message.eventIndex, detail: null, error: err instanceof Error ? err.message : String(err) };
        }
        void page.panel.webview.postMessage(reply);
        return;
      }
      case 'openSession':
        await this.show(message.id);
        return;
      case 'openEntry':
        await vscode.commands.executeCommand(CommandIds.openEntry, { id: message.id, projectId: message.projectId });
        return;
      case 'copyId':
        return copyId(id, 'session id');
    }
  }
}
