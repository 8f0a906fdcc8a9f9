import * as assert from 'node:assert/strict';
import { latestSearch } from '../../../src/extension/progressLog/commands/latestSearch';

/** A search whose answers the test releases one by one, in any order. */
function controlled(): { search: (v: string) => Promise<string>; calls: string[]; release(v: string): void; fail(v: string): void } {
  const pending = new Map<string, { resolve: (r: string) => void; reject: (e: Error) => void }>();
  const calls: string[] = [];
  return {
    calls,
    search: (v) =>
      new Promise<string>((resolve, reject) => {
        calls.push(v);
        pending.set(v, { resolve, reject });
      }),
    release: (v) => pending.get(v)!.resolve(`result for ${v}`),
    fail: (v) => pending.get(v)!.reject(new Error(`no ${v}`)),
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('search as you type, one at a time', () => {
  it('runs one search at a time, skips the values typed meanwhile and shows only the newest answer', async () => {
    const c = controlled();
    const shown: string[] = [];
    const busy: boolean[] = [];
    const s = latestSearch(c.search, { answer: (_v, r) => shown.push(r), failure: (v) => shown.push(`failed ${v}`), busy: (b) => busy.push(b) });
    void s.request('w');
    await tick();
    void s.request('we');
    void s.request('web');
    void s.request('webho');
    await tick();
    assert.deepEqual(c.calls, ['w'], 'nothing else starts while a search runs');
    c.release('w');
    await tick();
    assert.deepEqual(shown, [], 'the answer for "w" is stale: newer values were typed');
    assert.deepEqual(c.calls, ['w', 'webho'], 'the newest value is next; those in between are skipped');
    c.release('webho');
    await s.idle();
    assert.deepEqual(shown, ['result for webho']);
    assert.equal(s.started, 2);
    assert.equal(busy.at(-1), false);
  });

  it('drops an answer once a newer keystroke is known, before its search starts', async () => {
    const c = controlled();
    const shown: string[] = [];
    const s = latestSearch(c.search, { answer: (_v, r) => shown.push(r), failure: (v) => shown.push(`failed ${v}`), busy: () => undefined });
    void s.request('aut');
    await tick();
    s.invalidate(); // typed again; the debounce has not asked yet
    c.release('aut');
    await s.idle();
    assert.deepEqual(shown, []);
    void s.request('auth');
    await tick();
    c.fail('auth');
    await s.idle();
    assert.deepEqual(shown, ['failed auth'], 'a failure of the newest search is shown');
  });
});
