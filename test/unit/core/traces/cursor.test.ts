// Opaque cursors and size helpers: a cursor round-trips, and one that was tampered with, made for
// another tool or for other filters is refused with the specification's invalid_cursor.

import * as assert from 'node:assert/strict';
import { decodeCursor, encodeCursor, fingerprint } from '../../../../src/core/traces/cursor';
import { TraceError } from '../../../../src/core/traces/errors';
import { clip, costOf, shrinkToFit } from '../../../../src/core/responseBudget';

describe('cursors and size helpers', () => {
  const q = fingerprint({ provider: 'codex', hash: undefined });

  it('round-trips a position, as an opaque URL-safe token', () => {
    const c = encodeCursor('list_sessions', q, { s: '2026-05-05T01:20:31.412Z', i: 'abc' });
    assert.match(c, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeCursor('list_sessions', q, c), { s: '2026-05-05T01:20:31.412Z', i: 'abc' });
  });

  it('refuses a cursor that is garbage, from another tool, or for other filters', () => {
    const c = encodeCursor('list_sessions', q, { s: null, i: 'abc' });
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        assert.ok(err instanceof TraceError);
        return [err.code, err.retryable, err.message.split(':')[1]?.trim()];
      }
      return assert.fail('expected invalid_cursor');
    };
    assert.deepEqual(
      code(() => decodeCursor('list_sessions', q, 'not a cursor!')),
      [
        'invalid_cursor',
        false,
        'it is not one this server made. Pass next_cursor exactly as the previous page returned it, with the same other arguments, or omit cursor to start over.',
      ],
    );
    assert.equal(code(() => decodeCursor('list_sessions', q, Buffer.from('{"v":2}').toString('base64url')))[0], 'invalid_cursor');
    assert.match(String(code(() => decodeCursor('search_event_previews', q, c))[2]), /another tool or level/);
    assert.match(String(code(() => decodeCursor('list_sessions', fingerprint({ provider: 'gemini' }), c))[2]), /different filters/);
  });

  it('cuts text by code points and says how much was cut', () => {
    assert.equal(clip('🛒🛒🛒abc', 4), '🛒🛒🛒a…[+2 chars]');
    assert.equal(clip('short', 10), 'short');
  });

  it('shrinks the longest strings of a value until it fits a budget, and reports what it cut', () => {
    const value = { small: 'x', big: 'y'.repeat(50_000), list: ['z'.repeat(20_000)] };
    const cut = shrinkToFit(value, 10_000);
    assert.ok(costOf(value) <= 10_000, `fits: ${costOf(value)}`);
    assert.equal(cut[0]!.path, 'big');
    assert.equal(cut[0]!.total, 50_000);
    assert.ok(cut[0]!.shown < 10_000);
    assert.equal(value.small, 'x');
    assert.match(value.big, /…\[\+\d+ chars\]$/);
  });
});
