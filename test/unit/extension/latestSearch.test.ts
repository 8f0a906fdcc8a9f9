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

describe('search as you type, newest first', () => {
  it('asks for the newest value at once while an older search runs, keeps at most two in flight and only the newest waiting, and shows only the newest answer', async () => {
    const c = controlled();
    const shown: string[] = [];
    const busy: boolean[] = [];
    const s = latestSearch(c.search, { answer: (_v, r) => shown.push(r), failure: (v) => shown.push(`failed ${v}`), busy: (b) => busy.push(b) });
    void s.request('w');
    await tick();
    void s.request('we');
    await tick();
    assert.deepEqual(c.calls, ['w', 'we'], 'the newer value does not wait for the older search');
    void s.request('web');
    void s.request('webho');
    await tick();
    assert.deepEqual(c.calls, ['w', 'we'], 'two in flight: the next waits');
    c.release('w');
    await tick();
    assert.deepEqual(shown, [], 'the answer for "w" is stale: newer values were typed');
    assert.deepEqual(c.calls, ['w', 'we', 'webho'], 'the newest waiting value is next; those in between are skipped');
    c.release('webho');
    await tick();
    assert.deepEqual(shown, ['result for webho']);
    c.release('we');
    await s.idle();
    assert.deepEqual(shown, ['result for webho'], 'an older answer arriving after the newest one is dropped');
    assert.equal(s.started, 3);
    assert.equal(busy.at(-1), false);
  });

  it('answers a value typed again from the answer kept, without searching, until the ledger changes', async () => {
    const c = controlled();
    const shown: string[] = [];
    const s = latestSearch(c.search, { answer: (v, r) => shown.push(`${v}: ${r}`), failure: (v) => shown.push(`failed ${v}`), busy: () => undefined });
    void s.request('upg');
    await tick();
    c.release('upg');
    await s.idle();
    void s.request('upgr');
    await tick();
    void s.request('upg'); // backspace while "upgr" is still searching
    await tick();
    assert.deepEqual(c.calls, ['upg', 'upgr'], '"upg" again is not searched');
    assert.deepEqual(shown, ['upg: result for upg', 'upg: result for upg']);
    c.release('upgr');
    await s.idle();
    assert.equal(shown.length, 2, 'the answer for "upgr" came after "upg" was asked again: stale');
    void s.request('upgr');
    await s.idle();
    assert.deepEqual(shown.at(-1), 'upgr: result for upgr', 'a stale answer is still kept for its own value');
    assert.equal(c.calls.length, 2);
    s.forget();
    void s.request('upg');
    await tick();
    assert.deepEqual(c.calls, ['upg', 'upgr', 'upg'], 'after forget() it searches again');
    c.release('upg');
    await s.idle();
  });

  it('does not keep an answer to a search that started before the ledger changed', async () => {
    const c = controlled();
    const shown: string[] = [];
    const s = latestSearch(c.search, { answer: (v, r) => shown.push(`${v}: ${r}`), failure: (v) => shown.push(`failed ${v}`), busy: () => undefined });
    void s.request('cat');
    await tick();
    s.forget();
    c.release('cat');
    await s.idle();
    assert.deepEqual(shown, ['cat: result for cat'], 'it is still the newest answer, so it is shown');
    void s.request('catc');
    await tick();
    void s.request('cat');
    await tick();
    assert.deepEqual(c.calls, ['cat', 'catc', 'cat'], 'but not answered from memory later');
    c.release('catc');
    c.release('cat');
    await s.idle();
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
