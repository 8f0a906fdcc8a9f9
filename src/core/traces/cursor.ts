// Opaque pagination cursors. A cursor names the last item a page returned by
// its sort key (never an offset), so pages stay stable while sessions and events arrive; it also
// carries a fingerprint of the query so it cannot be replayed against another one. Sizes and
// cutting are in core/responseBudget.ts.

import { createHash } from 'node:crypto';
import { TraceError } from './errors';

export function fingerprint(query: Record<string, unknown>): string {
  const keys = Object.keys(query)
    .filter((k) => query[k] !== undefined)
    .sort();
  return createHash('sha1')
    .update(JSON.stringify(keys.map((k) => [k, query[k]])))
    .digest('base64url')
    .slice(0, 10);
}

export function encodeCursor(kind: string, query: string, position: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify({ v: 1, k: kind, q: query, p: position }), 'utf8').toString('base64url');
}

/** The position inside a cursor made by encodeCursor for the same kind and query. */
export function decodeCursor(kind: string, query: string, cursor: string): Record<string, unknown> {
  const invalid = (why: string): TraceError =>
    new TraceError(
      'invalid_cursor',
      `Invalid cursor: ${why}. Pass next_cursor exactly as the previous page returned it, with the same other arguments, or omit cursor to start over.`,
      {
        cursor: cursor.length > 80 ? `${cursor.slice(0, 80)}…` : cursor,
      },
    );
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid('it is not one this server made');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('it is not one this server made');
  }
  const o = parsed as { v?: unknown; k?: unknown; q?: unknown; p?: unknown };
  if (!o || typeof o !== 'object' || o.v !== 1 || typeof o.p !== 'object' || o.p === null) throw invalid('it is not one this server made');
  if (o.k !== kind) throw invalid(`it belongs to another tool or level (${String(o.k)})`);
  if (o.q !== query) throw invalid('it was made for different filters');
  return o.p as Record<string, unknown>;
}
