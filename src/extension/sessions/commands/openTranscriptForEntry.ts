// Open Agent Transcript (Progress Log entry): the transcript of the session that logged an entry
// (same project, running at the time), opened beside the entry; several candidates: a quick pick.

import * as vscode from 'vscode';
import type { CommandHandler } from '../../feature';
import type { SessionsDeps } from '../feature';
import { sessionDescription, sessionLabel } from '../agentSessionsItems';

/** The entry a command was given: a Progress Log node, or {id, projectId, createdAt}. */
function entryOf(arg: unknown): { id: string; projectId?: string; createdAt?: string } | undefined {
  if (typeof arg === 'string' && arg.trim() !== '') return { id: arg.trim() };
  if (!arg || typeof arg !== 'object') return undefined;
  const o = arg as { kind?: string; entry?: { id: string; projectId: string; createdAt: string }; id?: unknown; projectId?: unknown; createdAt?: unknown };
  if (o.kind === 'entry' && o.entry) return { id: o.entry.id, projectId: o.entry.projectId, createdAt: o.entry.createdAt };
  if (typeof o.id === 'string')
    return { id: o.id, ...(typeof o.projectId === 'string' ? { projectId: o.projectId } : {}), ...(typeof o.createdAt === 'string' ? { createdAt: o.createdAt } : {}) };
  return undefined;
}

export function openTranscriptForEntry(deps: SessionsDeps): CommandHandler {
  return async (arg?: unknown) => {
    const ref = entryOf(arg);
    if (!ref) return undefined;
    let { projectId, createdAt } = ref;
    if (!projectId || !createdAt) {
      try {
        const entry = await (await deps.host.progress()).showEntry(ref.id, projectId);
        projectId = entry.projectId;
        createdAt = entry.createdAt;
      } catch (err) {
        void vscode.window.showErrorMessage(`Agent Progress: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      }
    }
    const candidates = await deps.traces.service.transcriptsFor(projectId, createdAt);
    if (candidates.length === 0) {
      void vscode.window.showInformationMessage(`No agent transcript of project ${projectId} covers ${new Date(createdAt).toLocaleString()}.`);
      return undefined;
    }
    let chosen = candidates[0]!;
    if (candidates.length > 1) {
      const now = new Date();
      const pick = await vscode.window.showQuickPick(
        candidates.map((s) => ({ label: sessionLabel(s), description: sessionDescription(s, now), detail: s.id, session: s })),
        { title: 'Several agent sessions ran then: which one logged this entry?' },
      );
      if (!pick) return undefined;
      chosen = pick.session;
    }
    await deps.sessionPanels.show(chosen.id, { beside: true });
    return chosen.id;
  };
}
