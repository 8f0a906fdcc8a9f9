// An entry as commands receive it: a tree node, an {id, projectId} reference, or an id string.

/** What commands receive as their argument from a tree item or another command. */
export interface EntryRef {
  id: string;
  projectId?: string;
}

/** A tree node, an {id, projectId} reference, or an id string, as a reference. */
export function entryRef(arg: unknown): EntryRef | undefined {
  if (typeof arg === 'string' && arg.trim() !== '') return { id: arg.trim() };
  if (arg && typeof arg === 'object') {
    const o = arg as { kind?: string; entry?: { id: string; projectId: string }; id?: unknown; projectId?: unknown };
    if (o.kind === 'entry' && o.entry) return { id: o.entry.id, projectId: o.entry.projectId };
    if (typeof o.id === 'string') return { id: o.id, ...(typeof o.projectId === 'string' ? { projectId: o.projectId } : {}) };
  }
  return undefined;
}
