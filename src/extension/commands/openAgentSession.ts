// Open Agent Session: a session's page from a tree item, a search result or another command.

import * as vscode from 'vscode';
import { CommandIds } from '../commandIds';
import type { ExtensionDeps } from '../deps';

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

export function registerOpenAgentSession(deps: ExtensionDeps): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.openAgentSession, async (arg?: unknown, options?: { focusEvent?: number; beside?: boolean }) => {
    const id = sessionRef(arg);
    if (!id) return false;
    return deps.sessionPanels.show(id, options ?? {});
  });
}
