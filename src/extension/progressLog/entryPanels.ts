// Entry webviews: one panel per entry, showing it whole with its summary, a button that asks for a
// summary when none is cached, and live updates when any process changes the ledger.

import * as vscode from 'vscode';
import type { Logger } from '../../core/log';
import type { LogEntry } from '../../core/progress/types';
import type { EntryToHost, EntryView, HostToEntry } from '../../shared/entryProtocol';
import { CommandIds } from '../commandIds';
import { loadCore } from '../core';
import { Disposable } from '../disposable';
import type { LedgerHost } from '../ledgerHost';
import { copyId, ledgerMissing, Pages, type OpenPage } from '../webviews/pages';

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

export type EntryPages = Pages<EntryView, HostToEntry, EntryToHost>;

async function summarise(pages: EntryPages, host: LedgerHost, page: OpenPage<EntryView>): Promise<void> {
  const entry = page.model;
  if (!entry) return;
  await pages.busyWith(page, async () => {
    const out = await (await host.progress()).getContext({ projectId: entry.projectId, id: entry.id });
    page.model = { ...entry, summary: out.summary, summarySource: out.summarySource ?? null };
    if (out.summarySource === 'fallback')
      page.error = 'No language model answered, so this is an extract of the entry (not cached). Sign in to a chat model or set an API key to get a summary.';
  });
}

export class EntryPanels extends Disposable {
  readonly pages: EntryPages;

  constructor(
    extensionUri: vscode.Uri,
    private readonly host: LedgerHost,
    logger: Logger,
  ) {
    super();
    const pages: EntryPages = new Pages(extensionUri, logger, {
      viewType: ENTRY_VIEW_TYPE,
      name: 'entry',
      onDidChange: host.onDidChange,
      load: async (id, projectId) => toView(await (await host.progress()).showEntry(id, projectId)),
      keyOf: (entry) => entry.id,
      hintOf: (entry) => entry.projectId,
      title: (entry) => entry.title,
      render: (page) => ({ type: 'entry', entry: page.model!, summarising: page.busy, ...(page.error ? { error: page.error } : {}) }),
      missing: ledgerMissing<HostToEntry>((id, message) => ({ type: 'missing', id, message }), 'Entry'),
      // A fallback extract shown here is not in the ledger; keep it until a real summary arrives.
      merge: (previous, fresh) => (previous?.summarySource === 'fallback' && fresh.summary === null ? { ...fresh, summary: previous.summary, summarySource: 'fallback' } : fresh),
      parse: (raw) => loadCore().entryToHost.safeParse(raw),
      handle: async (page, message) => {
        switch (message.type) {
          case 'summarise':
            return summarise(pages, host, page);
          case 'openSession':
            if (page.model?.sessionId) await vscode.commands.executeCommand(CommandIds.openAgentSessionById, page.model.sessionId);
            return;
          case 'copyId':
            return copyId(page.key, 'entry id');
        }
      },
    });
    this.pages = this.register(pages);
  }

  /** The panels open now, by entry id (tests look at them). */
  get openIds(): string[] {
    return this.pages.openIds;
  }

  async show(id: string, projectId?: string, options: { summarise?: boolean } = {}): Promise<void> {
    const page = await this.pages.show(id, projectId !== undefined ? { hint: projectId } : {});
    if (page && options.summarise) await summarise(this.pages, this.host, page);
  }
}
