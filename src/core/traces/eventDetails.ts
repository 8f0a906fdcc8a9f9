// get_event_details: one event whole, redacted; a payload larger than a page has its longest texts
// cut (shrinkToFit) and the rest served in parts by an opaque cursor.

import { costOf, getAt, jsonBytes, kb, shrinkToFit } from '../responseBudget';
import { decodeCursor, encodeCursor, fingerprint } from './cursor';
import { TraceError } from './errors';
import { BUDGETS, parseTraceInput, withSize, type TraceContext } from './pages';
import { redactValue } from './redact';
import { getEventDetailsInput, type GetEventDetailsOutput } from './schemas';
import type { IndexedSession, TraceIndex } from './traceIndex';
import type { TraceEvent } from './types';

/** The event at `eventIndex` of a session, read from its transcript; undefined when it is gone. */
export async function findEvent(index: TraceIndex, s: IndexedSession, eventIndex: number): Promise<TraceEvent | undefined> {
  const hit: { ev?: TraceEvent } = {};
  await index.scanEvents(s, (ev) => {
    if (ev.index !== eventIndex) return undefined;
    hit.ev = ev;
    return false;
  });
  return hit.ev;
}

export async function getEventDetails(ctx: TraceContext, raw: unknown): Promise<GetEventDetailsOutput> {
  const input = parseTraceInput(getEventDetailsInput, raw);
  await ctx.index.refresh();
  const s = await ctx.find(input.session_id);
  const count = s.builder.eventCount;
  if (input.event_index >= count) {
    throw new TraceError('invalid_event_index', `Event index ${input.event_index} out of bounds for session ${s.id} (max: ${count - 1})`, {
      session_id: s.id,
      requested_index: input.event_index,
      max_index: count - 1,
    });
  }
  const ev = await findEvent(ctx.index, s, input.event_index);
  if (!ev)
    throw new TraceError(
      'invalid_event_index',
      `Event ${input.event_index} of session ${s.id} is no longer in its transcript (the file changed); list the session again.`,
      { session_id: s.id, requested_index: input.event_index, max_index: count - 1 },
      true,
    );
  const payload = redactValue(ev.payload) as unknown;
  const base = { session_id: s.id, event_index: ev.index, timestamp: ev.timestamp, event_type: ev.type, turn_index: ev.turn, step_index: ev.step };
  const query = fingerprint({ id: s.id, e: ev.index });
  if (input.cursor) return eventChunk(base, payload, decodeCursor('get_event_details', query, input.cursor), query);
  const cutPayload = structuredClone(payload);
  const truncated = shrinkToFit(
    cutPayload,
    BUDGETS.details - costOf({ ...base, next_cursor: 'x'.repeat(400), hint: 'x'.repeat(500), truncated: [{ path: 'x'.repeat(40), shown: 0, total: 0 }] }),
  );
  if (truncated.length === 0) {
    return withSize({ ...base, payload, next_cursor: null, hint: 'This is the whole event. Use search_event_previews to find related events.' });
  }
  const fields = truncated.map((t) => [t.path, t.shown] as const);
  return withSize({
    ...base,
    payload: cutPayload,
    truncated,
    next_cursor: encodeCursor('get_event_details', query, { f: fields, i: 0, o: truncated[0]!.shown }),
    hint: `The payload is larger than one response (${kb(jsonBytes(payload))}); its longest texts are cut. Call again with cursor=next_cursor to read the rest of ${truncated.map((t) => t.path).join(', ')}.`,
  });
}

/** The next part of a payload's cut texts: the cursor lists the cut fields and where to go on. */
function eventChunk(base: Omit<GetEventDetailsOutput, 'next_cursor' | 'hint'>, payload: unknown, pos: Record<string, unknown>, query: string): GetEventDetailsOutput {
  const fields = Array.isArray(pos.f) ? (pos.f as unknown[]).filter((f): f is [string, number] => Array.isArray(f) && typeof f[0] === 'string' && typeof f[1] === 'number') : [];
  const i = typeof pos.i === 'number' ? pos.i : -1;
  const offset = typeof pos.o === 'number' ? pos.o : -1;
  const field = fields[i];
  const original = field ? getAt(payload, field[0]) : undefined;
  if (!field || typeof original !== 'string' || offset < 0 || offset > original.length) {
    throw new TraceError('invalid_cursor', "Invalid cursor: it does not point into this event's payload. Omit cursor to read the event again.", {
      session_id: base.session_id,
      event_index: base.event_index,
    });
  }
  const room = BUDGETS.details - 2_500;
  let end = Math.min(original.length, offset + Math.floor(room / 2));
  let text = original.slice(offset, end);
  // Escaping can double a character's cost (or more, for control characters): shrink until it fits.
  while (costOf(text) > room && end > offset + 1) {
    end = offset + Math.floor(((end - offset) * room) / costOf(text)) - 1;
    text = original.slice(offset, end);
  }
  const next = end < original.length ? { f: fields, i, o: end } : i + 1 < fields.length ? { f: fields, i: i + 1, o: fields[i + 1]![1] } : null;
  return withSize({
    ...base,
    chunk: { path: field[0], offset, total: original.length, text },
    next_cursor: next ? encodeCursor('get_event_details', query, next) : null,
    hint: next ? 'More of this payload: call again with cursor=next_cursor.' : 'This is the end of the payload.',
  });
}
