// Agent Progress: Search Logs: a quick pick with ranked full-text results as you type (title,
// snippet, project, date) across every project; choosing one opens the entry.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { EntryListing } from '../../../core/progress/types';
import type { ProgressLogDeps } from '../feature';
import { relativeTime } from '../../views/format';
import { latestSearch } from './latestSearch';
import { searchTracer } from './searchTrace';

interface ResultItem extends vscode.QuickPickItem {
  entry?: EntryListing;
}

export function searchItems(entries: EntryListing[], total: number, now: Date): ResultItem[] {
  const items: ResultItem[] = entries.map((entry) => ({
    label: entry.title,
    description: `${entry.projectId} · ${relativeTime(entry.createdAt, now)}${entry.agentId ? ` · ${entry.agentId}` : ''}`,
    detail: entry.snippet ?? (entry.tags.length > 0 ? entry.tags.map((t) => `#${t}`).join(' ') : undefined),
    alwaysShow: true,
    entry,
  }));
  if (total > entries.length) items.push({ label: `${total - entries.length} more: refine the search`, alwaysShow: true, kind: vscode.QuickPickItemKind.Separator });
  return items;
}

/** How long a search runs before the quick pick is told it is busy. */
const BUSY_AFTER_MS = 200;

export function searchLogs(deps: ProgressLogDeps): CommandHandler {
  return async (initial?: unknown) => {
    const pick = vscode.window.createQuickPick<ResultItem>();
    pick.title = 'Search Agent Progress Logs';
    pick.placeholder = 'Words in titles and content: "a phrase", prefix*, -exclude, OR';
    pick.matchOnDescription = false;
    pick.matchOnDetail = false;
    const trace = searchTracer();
    let busyTimer: NodeJS.Timeout | undefined;
    const search = async (value: string): Promise<{ entries: EntryListing[]; total: number }> => {
      trace?.('start', value);
      const answer = await (await deps.host.progress()).quickSearch(value, { limit: 40 });
      trace?.('answer', value, { hits: answer.total });
      return answer;
    };
    const searches = latestSearch(search, {
      answer(value, { entries, total }) {
        pick.items = entries.length > 0 ? searchItems(entries, total, new Date()) : [{ label: value ? `No entries match "${value}"` : 'No entries yet', alwaysShow: true }];
        trace?.('items', value);
      },
      failure(_value, err) {
        pick.items = [{ label: `Search failed: ${err instanceof Error ? err.message : String(err)}`, alwaysShow: true }];
      },
      busy(busy) {
        // VS Code shows a busy quick pick's progress bar only after 800 ms; telling it at once
        // costs the window one more update per key, so a search says so only once it is slow.
        clearTimeout(busyTimer);
        busyTimer = busy ? setTimeout(() => (pick.busy = true), BUSY_AFTER_MS) : undefined;
        if (!busy && pick.busy) pick.busy = false;
      },
    });
    // Answers kept for values typed again hold only while the ledger is unchanged.
    const changes = deps.host.onDidChange(() => searches.forget());
    const done = new Promise<void>((resolve) => {
      // Each keystroke asks at once, even while an older search runs (latestSearch: at most two in
      // flight, only the newest waiting, answers to older values dropped), so no debounce is needed
      // (a 120 ms one was more than the whole 100 ms budget from keystroke to results).
      pick.onDidChangeValue((value) => {
        trace?.('change', value);
        void searches.request(value);
      });
      pick.onDidAccept(() => {
        const chosen = pick.selectedItems[0]?.entry;
        if (chosen) {
          pick.hide();
          void deps.entries.show(chosen.id, chosen.projectId);
        }
      });
      pick.onDidHide(() => {
        clearTimeout(busyTimer);
        changes.dispose();
        pick.dispose();
        resolve();
      });
    });
    if (typeof initial === 'string') pick.value = initial;
    pick.show();
    await searches.request(pick.value);
    return { pick, done, searches };
  };
}
