// Agent Progress: Open Agent Session by ID: an id or a unique prefix, as agents quote them; an
// ambiguous prefix offers its matches.

import * as vscode from 'vscode';
import { givenOrAsk } from '../../ask';
import type { CommandHandler } from '../../feature';
import type { SessionsDeps } from '../feature';
import { loadCore } from '../../core';

export function openAgentSessionById(deps: SessionsDeps): CommandHandler {
  return async (given?: unknown) => {
    const typed = await givenOrAsk(given, {
      title: 'Open Agent Session by ID',
      prompt: 'A session id, or its first characters (8 are usually enough)',
      placeHolder: '3c02559b',
      validateInput: (v) => (v.trim() === '' ? 'Type a session id' : v.trim().length > 200 ? 'Session ids are at most 200 characters' : undefined),
    });
    if (typed === undefined || typed.trim() === '') return false;
    const service = deps.traces.service;
    await service.refresh();
    let id = typed.trim();
    try {
      id = (await service.find(id)).id;
    } catch (err) {
      if (loadCore().isTraceError(err) && err.code === 'ambiguous_session_prefix') {
        const matches = (err.details.matches as string[]).map((m) => service.index.get(m)).filter((s) => s !== undefined);
        const pick = await vscode.window.showQuickPick(
          matches.map((s) => ({ label: s.id, description: service.listing(s).title ?? s.builder.turns[0]?.userMessage ?? '', detail: `${s.provider} · ${s.start ?? ''}` })),
          { title: err.message },
        );
        if (!pick) return false;
        id = pick.label;
      } else {
        void vscode.window.showErrorMessage(`Agent Progress: ${err instanceof Error ? err.message : String(err)}`);
        return false;
      }
    }
    return deps.sessionPanels.show(id);
  };
}
