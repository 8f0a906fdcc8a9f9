// Agent Progress: Search Agent Sessions: a quick pick over every transcript's events as you type
// (tool calls, results, prompts, messages; secrets redacted); choosing one opens its session at
// that event.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { EventMatch } from '../../../core/traces/schemas';
import type { SessionsDeps } from '../feature';
import { relativeTime } from '../../views/format';
import { PROVIDER_LABELS } from '../agentSessionsItems';

interface ResultItem extends vscode.QuickPickItem {
  match?: EventMatch;
}

const DEBOUNCE_MS = 200;
const ICONS: Record<string, string> = {
  ToolCall: 'tools',
  ToolResult: 'output',
  User: 'account',
  Message: 'comment',
  Reasoning: 'lightbulb',
  TokenUsage: 'dashboard',
  Notification: 'bell',
};

function previewText(m: EventMatch): string {
  const p = m.preview as { tool?: string; arguments?: unknown; preview?: string; text?: string; is_error?: boolean };
  if (m.event_type === 'ToolCall') return `${p.tool ?? ''} ${typeof p.arguments === 'string' ? p.arguments : JSON.stringify(p.arguments ?? {})}`;
  if (m.event_type === 'ToolResult') return `${p.is_error ? '✗ ' : ''}${p.tool ?? ''}: ${p.preview ?? ''}`;
  return p.text ?? JSON.stringify(p);
}

export function searchItems(matches: EventMatch[], titles: (id: string) => string, now: Date): ResultItem[] {
  return matches.map((m) => ({
    label: `$(${ICONS[m.event_type] ?? 'circle-small'}) ${previewText(m).replace(/\s+/g, ' ').slice(0, 160)}`,
    description: `${PROVIDER_LABELS[m.provider] ?? m.provider} · ${m.timestamp ? relativeTime(m.timestamp, now) : ''}`,
    detail: `${m.event_type} in ${titles(m.session_id)} (turn ${m.turn_index})`,
    alwaysShow: true,
    match: m,
  }));
}

export function searchAgentSessions(deps: SessionsDeps): CommandHandler {
  return async (initial?: unknown) => {
    const pick = vscode.window.createQuickPick<ResultItem>();
    pick.title = 'Search Agent Sessions';
    pick.placeholder = 'Text in tool calls, outputs, prompts and messages of Claude Code, Codex, Gemini and Copilot sessions';
    pick.matchOnDescription = false;
    pick.matchOnDetail = false;
    let generation = 0;
    let searched: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    const service = deps.traces.service;
    const titles = (id: string): string => {
      const s = service.index.get(id);
      return (s?.title ?? s?.builder.turns.find((t) => t.userMessage)?.userMessage ?? id).slice(0, 80);
    };
    const run = async (value: string): Promise<void> => {
      const mine = ++generation;
      searched = value;
      if (value.trim() === '') {
        pick.items = [{ label: 'Type to search every agent session on this machine', alwaysShow: true }];
        return;
      }
      pick.busy = true;
      try {
        const matches = await service.quickSearch(value, 40);
        if (mine !== generation) return;
        pick.items = matches.length > 0 ? searchItems(matches, titles, new Date()) : [{ label: `No events match "${value}"`, alwaysShow: true }];
      } catch (err) {
        if (mine === generation) pick.items = [{ label: `Search failed: ${err instanceof Error ? err.message : String(err)}`, alwaysShow: true }];
      } finally {
        if (mine === generation) pick.busy = false;
      }
    };
    const done = new Promise<void>((resolve) => {
      pick.onDidChangeValue((value) => {
        if (timer) clearTimeout(timer);
        // The window echoes a value set here (the command's argument): it is searched already,
        // and searching again would replace the items under a person's selection.
        if (value === searched) return;
        timer = setTimeout(() => void run(value), DEBOUNCE_MS);
      });
      pick.onDidAccept(() => {
        const chosen = pick.selectedItems[0]?.match;
        if (chosen) {
          pick.hide();
          void deps.sessionPanels.show(chosen.session_id, { focusEvent: chosen.event_index });
        }
      });
      pick.onDidHide(() => {
        if (timer) clearTimeout(timer);
        pick.dispose();
        resolve();
      });
    });
    if (typeof initial === 'string') pick.value = initial;
    pick.show();
    await run(pick.value);
    return { pick, done };
  };
}
