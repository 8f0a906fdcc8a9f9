// Open Agent Session: a session's page from a tree item, a search result or another command.

import type { CommandHandler } from '../../feature';
import type { SessionsDeps } from '../feature';

/** A session id from a tree node ({kind: 'session'}), an {id} reference or an id string. */
export function sessionRef(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg.trim() !== '') return arg.trim();
  if (arg && typeof arg === 'object') {
    const o = arg as { kind?: string; session?: { id?: unknown }; id?: unknown };
    if (o.kind === 'session' && typeof o.session?.id === 'string') return o.session.id;
    if (typeof o.id === 'string') return o.id;
  }
  return undefined;
}

export function openAgentSession(deps: SessionsDeps): CommandHandler {
  return async (arg?: unknown, options?: { focusEvent?: number; beside?: boolean }) => {
    const id = sessionRef(arg);
    if (!id) return false;
    return deps.sessionPanels.show(id, options ?? {});
  };
}
