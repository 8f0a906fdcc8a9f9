import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { LedgerError } from '../../../../src/core/errors';
import { createLogger, silentLogger } from '../../../../src/core/log';
import { createOpenAiProvider } from '../../../../src/core/progress/openAiSummary';
import { ProgressService } from '../../../../src/core/progress/progressService';
import { extractiveSummary, Summariser, type SummaryProvider } from '../../../../src/core/progress/summariser';
import { openLedger } from '../../../../src/core/storage/openLedger';
import type { Ledger } from '../../../../src/core/storage/store';
import { startChatServer, type ChatServer } from '../../../helpers/chatServer';
import { tempDir, useTempDirs } from '../../../helpers/tmp';

describe('progress service', () => {
  useTempDirs();
  let ledger: Ledger;
  let clockMs: number;
  const clock = () => new Date(clockMs);

  function service(providers: readonly SummaryProvider[] = []): ProgressService {
    return new ProgressService({ store: ledger.progress, summariser: new Summariser(providers, silentLogger), logger: silentLogger, clock });
  }

  async function log(s: ProgressService, title: string, extra: Record<string, unknown> = {}, at?: string) {
    if (at) clockMs = Date.parse(at);
    else clockMs += 1000;
    return s.logProgress({ projectId: 'mobile-app', title, content: `Content of ${title}`, ...extra });
  }

  beforeEach(async () => {
    clockMs = Date.parse('2025-06-01T00:00:00Z');
    ledger = await openLedger({ file: path.join(tempDir(), 'data.db') });
  });
  afterEach(async () => {
    await ledger.close();
  });

  describe('log_progress', () => {
    it("creates the project on first use and returns the seed's fields", async () => {
      const s = service();
      const out = await log(s, 'Implemented user registration endpoint', { tags: ['api', 'users'] }, '2025-06-15T14:32:00Z');
      assert.match(out.id, /^[A-Za-z0-9_-]{12}$/);
      assert.deepEqual(out, { id: out.id, projectId: 'mobile-app', title: 'Implemented user registration endpoint', createdAt: '2025-06-15T14:32:00.000Z' });
      const projects = await s.listProjects();
      assert.deepEqual(
        projects.map((p) => [p.projectId, p.name, p.entryCount]),
        [['mobile-app', 'mobile-app', 1]],
      );
    });

    it('gives every entry a distinct id', async () => {
      const s = service();
      const ids = new Set<string>();
      for (let i = 0; i < 100; i++) ids.add((await log(s, `t${i}`)).id);
      assert.equal(ids.size, 100);
    });

    it('stores markup and unicode byte for byte', async () => {
      const s = service();
      const title = '<img src=x onerror=alert(1)> “quotes” — 😀 e\u0301 \u202eRTL';
      const content = '# Heading\n\n```ts\nconst a = `${b}`;\n```\n<script>alert("x")</script>\r\n\tTabs & ampersands; DROP TABLE log_entries; --';
      const out = await s.logProgress({ projectId: 'p', title, content, tags: ['<b>', 'ünï'] });
      const entry = await s.showEntry(out.id, 'p');
      assert.equal(entry.title, title);
      assert.equal(entry.content, content);
      assert.deepEqual(entry.tags, ['<b>', 'ünï']);
    });

    it('keeps tags once each, first spelling, and an empty agentId as none', async () => {
      const s = service();
      const out = await log(s, 'tags', { tags: ['Auth', 'auth', ' auth ', 'API'], agentId: '' });
      const entry = await s.showEntry(out.id);
      assert.deepEqual(entry.tags, ['Auth', 'API']);
      assert.equal(entry.agentId, null);
    });

    it('refuses bad input and stores nothing', async () => {
      const s = service();
      const before = (await ledger.stats()).seq;
      await assert.rejects(s.logProgress({ projectId: 'p', title: 'x'.repeat(101), content: 'c' }), /title exceeds maximum length of 100 characters/);
      await assert.rejects(s.logProgress({ projectId: 'p', title: 't', content: 'c', tags: ['a\0b'] }), /tags\[0\]/);
      assert.equal((await ledger.stats()).seq, before);
      assert.deepEqual(await s.listProjects(), []);
    });
  });

  describe('search_logs', () => {
    let s: ProgressService;
    beforeEach(async () => {
      s = service();
      await log(s, 'Added auth middleware', { tags: ['auth', 'middleware'] }, '2025-06-10T09:15:00Z');
      await log(s, 'Refactored authentication module', { tags: ['auth', 'refactor'] }, '2025-06-15T14:32:00Z');
      await log(s, 'Fixed 100% CPU in the build_cache', { tags: ['perf'] }, '2025-06-20T08:00:00Z');
      await log(s, 'Wrote OAuth docs', { tags: ['docs', 'Auth'] }, '2025-06-25T10:00:00Z');
      await s.logProgress({ projectId: 'other', title: 'auth in another project', content: 'x' });
    });

    it('matches the query as a case-insensitive substring of the title, newest first', async () => {
      const r = await s.searchLogs({ projectId: 'mobile-app', query: 'AUTH' });
      assert.deepEqual(
        r.entries.map((e) => e.title),
        ['Wrote OAuth docs', 'Refactored authentication module', 'Added auth middleware'],
      );
      assert.equal(r.total, 3);
    });

    it('treats %, _ and other punctuation in the query literally', async () => {
      assert.deepEqual(
        (await s.searchLogs({ projectId: 'mobile-app', query: '100%' })).entries.map((e) => e.title),
        ['Fixed 100% CPU in the build_cache'],
      );
      assert.deepEqual(
        (await s.searchLogs({ projectId: 'mobile-app', query: 'd_c' })).entries.map((e) => e.title),
        ['Fixed 100% CPU in the build_cache'],
      );
      assert.equal((await s.searchLogs({ projectId: 'mobile-app', query: '%' })).total, 1);
      assert.equal((await s.searchLogs({ projectId: 'mobile-app', query: 'a_' })).total, 0);
    });

    it('requires ALL given tags, case-insensitively', async () => {
      assert.deepEqual(
        (await s.searchLogs({ projectId: 'mobile-app', tags: ['auth', 'REFACTOR'] })).entries.map((e) => e.title),
        ['Refactored authentication module'],
      );
      assert.equal((await s.searchLogs({ projectId: 'mobile-app', tags: ['auth'] })).total, 3);
      assert.equal((await s.searchLogs({ projectId: 'mobile-app', tags: ['auth', 'nope'] })).total, 0);
    });

    it('filters by an inclusive date range; a date alone covers its whole day', async () => {
      const r = await s.searchLogs({ projectId: 'mobile-app', startDate: '2025-06-15', endDate: '2025-06-20' });
      assert.deepEqual(
        r.entries.map((e) => e.createdAt),
        ['2025-06-20T08:00:00.000Z', '2025-06-15T14:32:00.000Z'],
      );
      const exact = await s.searchLogs({ projectId: 'mobile-app', startDate: '2025-06-15T14:32:00Z', endDate: '2025-06-15T14:32:00Z' });
      assert.equal(exact.total, 1);
      const offset = await s.searchLogs({ projectId: 'mobile-app', startDate: '2025-06-15T16:32:00+02:00' });
      assert.equal(offset.total, 3);
    });

    it('refuses a start after the end', async () => {
      await assert.rejects(s.searchLogs({ projectId: 'mobile-app', startDate: '2025-07-01', endDate: '2025-06-01' }), /startDate \(2025-07-01\) is after endDate/);
    });

    it('counts the total before the limit', async () => {
      const r = await s.searchLogs({ projectId: 'mobile-app', limit: 2 });
      assert.equal(r.entries.length, 2);
      assert.equal(r.total, 4);
      assert.equal(r.entries[0]!.title, 'Wrote OAuth docs');
    });

    it('combines query, tags and dates', async () => {
      const r = await s.searchLogs({ projectId: 'mobile-app', query: 'auth', tags: ['auth'], startDate: '2025-06-12' });
      assert.deepEqual(
        r.entries.map((e) => e.title),
        ['Wrote OAuth docs', 'Refactored authentication module'],
      );
    });

    it('never returns content or summary', async () => {
      const r = await s.searchLogs({ projectId: 'mobile-app' });
      for (const e of r.entries) assert.deepEqual(Object.keys(e).sort(), ['createdAt', 'id', 'tags', 'title']);
    });

    it('returns nothing, not an error, for a project without entries', async () => {
      assert.deepEqual(await s.searchLogs({ projectId: 'fresh-repo' }), { entries: [], total: 0, listings: [] });
    });

    it('ranks full-text matches over titles and content by relevance', async () => {
      await s.logProgress({ projectId: 'mobile-app', title: 'Token work', content: 'jwt jwt jwt tokens everywhere, jwt refresh' });
      await s.logProgress({ projectId: 'mobile-app', title: 'Misc', content: 'one mention of jwt among many other words here and there about the build' });
      const r = await s.searchLogs({ projectId: 'mobile-app', text: 'jwt' });
      assert.deepEqual(
        r.entries.map((e) => e.title),
        ['Token work', 'Misc'],
      );
      assert.equal((await s.searchLogs({ projectId: 'mobile-app', text: 'content' })).total, 4);
      assert.equal((await s.searchLogs({ projectId: 'mobile-app', text: 'jwt -refresh' })).total, 1);
      assert.equal((await s.searchLogs({ projectId: 'mobile-app', text: 'authent*' })).total, 1);
    });

    it('refuses full-text input with nothing to search for', async () => {
      await assert.rejects(s.searchLogs({ projectId: 'mobile-app', text: '*** ---' }), /text has no words to search for/);
    });

    it('finds an entry by its content and title the moment it is logged', async () => {
      await s.logProgress({ projectId: 'mobile-app', title: 'Zeppelin hangar', content: 'quixotic xylophone' });
      assert.equal((await s.searchLogs({ projectId: 'mobile-app', text: 'xylophone' })).total, 1);
      assert.equal((await s.searchLogs({ projectId: 'mobile-app', query: 'pelin hang' })).total, 1);
    });

    it("lists a project's tags with counts, case-insensitively merged", async () => {
      const tags = await s.listTags('mobile-app');
      assert.deepEqual(tags[0], { tag: 'Auth', count: 3 });
      assert.equal(tags.length, 5);
    });
  });

  describe('search plans', () => {
    // Enough entries that a common tag or title word takes the date-index path (over 2,000
    // candidates) and a rare one the sort-the-candidates path: both must agree with brute force.
    it('gives the same answers as a brute-force filter, whichever way the query is driven', async function () {
      this.timeout(120_000);
      const s = service();
      const all: { id: string; title: string; tags: string[]; createdAt: string }[] = [];
      const ledgerEntries: Parameters<typeof ledger.progress.insertEntry>[0][] = [];
      for (let i = 0; i < 2_600; i++) {
        const tags = [i % 2 === 0 ? 'common' : 'other', ...(i % 97 === 0 ? ['rare'] : [])];
        const title = `${i % 3 === 0 ? 'Widget' : 'Gadget'} change ${i}${i % 89 === 0 ? ' unicorn' : ''}`;
        const createdAt = new Date(Date.parse('2025-01-01T00:00:00Z') + i * 60_000).toISOString();
        ledgerEntries.push({ id: `id${String(i).padStart(5, '0')}`, projectId: 'big', title, content: `body ${i}`, createdAt, tags, agentId: null });
        all.push({ id: `id${String(i).padStart(5, '0')}`, title, tags, createdAt });
      }
      for (const e of ledgerEntries) await ledger.progress.insertEntry(e);
      const newest = (xs: typeof all) =>
        [...xs]
          .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
          .slice(0, 7)
          .map((x) => x.id);
      const cases: [Record<string, unknown>, (x: (typeof all)[number]) => boolean][] = [
        [{ tags: ['common'] }, (x) => x.tags.includes('common')],
        [{ tags: ['rare'] }, (x) => x.tags.includes('rare')],
        [{ tags: ['common', 'rare'] }, (x) => x.tags.includes('common') && x.tags.includes('rare')],
        [{ query: 'widget' }, (x) => x.title.toLowerCase().includes('widget')],
        [{ query: 'unicorn' }, (x) => x.title.includes('unicorn')],
        [{ query: 'widget', tags: ['common'] }, (x) => x.title.includes('Widget') && x.tags.includes('common')],
        [{ tags: ['common'], startDate: '2025-01-02T00:00:00Z' }, (x) => x.tags.includes('common') && x.createdAt >= '2025-01-02T00:00:00.000Z'],
        [{ tags: ['rare', 'common'], endDate: '2025-01-02T12:00:00Z' }, (x) => x.tags.includes('common') && x.tags.includes('rare') && x.createdAt <= '2025-01-02T12:00:00.000Z'],
        [{ tags: ['common', 'other'] }, () => false],
        [{}, () => true],
      ];
      for (const [filter, keep] of cases) {
        const expected = all.filter(keep);
        const got = await s.searchLogs({ projectId: 'big', limit: 7, ...filter });
        assert.equal(got.total, expected.length, JSON.stringify(filter));
        assert.deepEqual(
          got.entries.map((e) => e.id),
          newest(expected),
          JSON.stringify(filter),
        );
        // Further pages, as the Progress Log's "show more" asks for them (the store takes an offset).
        const paged = await ledger.progress.searchEntries({ projectId: 'big', limit: 7, offset: 5, ...filter });
        const sorted = [...expected].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
        assert.deepEqual(
          paged.entries.map((e) => e.id),
          sorted.slice(5, 12).map((x) => x.id),
          `${JSON.stringify(filter)} from 5`,
        );
      }
    });
    it('takes the last word typed as a prefix from its third letter on', async () => {
      const s = service();
      await s.logProgress({ projectId: 'typed', title: 'UI polish', content: 'Spacing of the ui.' });
      await s.logProgress({ projectId: 'typed', title: 'Parse uint values', content: 'uint32 parsing.' });
      await s.logProgress({ projectId: 'typed', title: 'Unrelated', content: 'Nothing here.' });
      const titles = async (input: string): Promise<string[]> => (await s.quickSearch(input, { projectId: 'typed' })).entries.map((e) => e.title).sort();
      assert.deepEqual(await titles('u'), [], 'one letter: the word "u" itself, not every word in u');
      assert.deepEqual(await titles('ui'), ['UI polish']);
      assert.deepEqual(await titles('uin'), ['Parse uint values']);
      assert.deepEqual(await titles('spacing u'), []);
      assert.deepEqual(await titles('spacing ui'), ['UI polish']);
      assert.deepEqual(await titles('"the ui"'), ['UI polish']);
    });
    it('ranks full-text matches, pages them, and gives each listed entry a snippet of its match', async () => {
      const s = service();
      await s.logProgress({
        projectId: 'ranked',
        title: 'Mentions once',
        content: 'A long note about many things, and the journal once, among other words that dilute it a great deal.',
      });
      await s.logProgress({ projectId: 'ranked', title: 'Journal journal', content: 'journal journal journal: the journal is fsynced' });
      await s.logProgress({ projectId: 'ranked', title: 'Unrelated', content: 'Nothing to see here' });
      for (let i = 0; i < 30; i++) await s.logProgress({ projectId: 'ranked', title: `Filler ${i}`, content: `the journal appears in filler ${i} with some more words around it` });
      const all = await s.quickSearch('journal', { projectId: 'ranked', limit: 200 });
      assert.equal(all.total, 32);
      assert.equal(all.entries.length, 32);
      assert.equal(all.entries[0]!.title, 'Journal journal', 'the densest match first');
      assert.equal(all.entries.at(-1)!.title, 'Mentions once', 'the most diluted match last');
      for (const e of all.entries) assert.match(e.snippet ?? '', /journal/i, `${e.title} has a snippet of its match`);
      const page = await s.quickSearch('journal', { projectId: 'ranked', limit: 5 });
      assert.deepEqual(
        page.entries.map((e) => e.id),
        all.entries.slice(0, 5).map((e) => e.id),
      );
    });
  });

  describe('get_context', () => {
    let chat: ChatServer;
    beforeEach(async () => {
      chat = await startChatServer();
    });
    afterEach(async () => {
      await chat.close();
    });

    function withEndpoint(): ProgressService {
      const provider = createOpenAiProvider({ apiKey: 'sk-test-key-0123456789abcdef', baseUrl: chat.baseUrl, model: 'tiny-model' }, silentLogger)!;
      return service([provider]);
    }

    it("summarises once through the endpoint with the seed's prompt, then serves the cache", async () => {
      const s = withEndpoint();
      const { id } = await s.logProgress({ projectId: 'p', title: 'Refactored authentication module', content: 'Long story about JWT.' });
      const first = await s.getContext({ projectId: 'p', id });
      assert.equal(first.summary, 'Summarised by the loopback model.');
      assert.equal(first.summarySource, 'openai');
      assert.equal(first.content, undefined);
      const second = await s.getContext({ projectId: 'p', id, includeFull: true });
      assert.equal(second.summary, 'Summarised by the loopback model.');
      assert.equal(second.content, 'Long story about JWT.');
      assert.equal(chat.requests.length, 1);
      const body = chat.requests[0]!.body;
      assert.equal(body.model, 'tiny-model');
      assert.equal(body.max_tokens, 150);
      assert.equal(body.temperature, 0.3);
      assert.match(body.messages![0]!.content, /^You are a technical summariser\./);
      assert.equal(body.messages![1]!.content, 'Title: Refactored authentication module\n\nContent:\nLong story about JWT.');
      assert.equal(chat.requests[0]!.headers.authorization, 'Bearer sk-test-key-0123456789abcdef');
    });

    it('falls back to an extract when the endpoint fails, and does not cache it', async () => {
      const lines: string[] = [];
      const logger = createLogger({ sink: (l) => lines.push(l) });
      const provider = createOpenAiProvider({ apiKey: 'sk-test-key-0123456789abcdef', baseUrl: chat.baseUrl, model: 'm' }, logger)!;
      const s = new ProgressService({ store: ledger.progress, summariser: new Summariser([provider], logger), logger });
      const { id } = await s.logProgress({ projectId: 'p', title: 't', content: 'First sentence. Second sentence.' });
      chat.reply = { status: 429, message: 'API rate limit exceeded' };
      const first = await s.getContext({ projectId: 'p', id });
      assert.equal(first.summarySource, 'fallback');
      assert.equal(first.summary, 'First sentence. Second sentence.');
      assert.ok(
        lines.some((l) => l.includes('rate limit')),
        lines.join('\n'),
      );
      assert.ok(lines.every((l) => !l.includes('sk-test-key')));
      chat.reply = { text: 'Now a real summary.' };
      const second = await s.getContext({ projectId: 'p', id });
      assert.equal(second.summary, 'Now a real summary.');
      assert.equal(second.summarySource, 'openai');
      assert.ok(chat.requests.length >= 2);
    });

    it('names the HTTP status of a failed summary once (a real 429 from the loopback endpoint)', async () => {
      const lines: string[] = [];
      const logger = createLogger({ sink: (l) => lines.push(l) });
      const provider = createOpenAiProvider({ apiKey: 'sk-test-key-0123456789abcdef', baseUrl: chat.baseUrl, model: 'm' }, logger)!;
      const s = new ProgressService({ store: ledger.progress, summariser: new Summariser([provider], logger), logger });
      const { id } = await s.logProgress({ projectId: 'p', title: 't', content: 'Only sentence.' });
      chat.reply = { status: 429, message: 'API rate limit exceeded' };
      assert.equal((await s.getContext({ projectId: 'p', id })).summarySource, 'fallback');
      const failed = lines.filter((l) => l.includes('failed:'));
      assert.equal(failed.length, 1, lines.join('\n'));
      assert.ok(failed[0]!.endsWith(`Summary by ${provider.label} failed: 429 API rate limit exceeded`), failed[0]);
    });

    it('tries a per-call provider (sampling) before the configured endpoint', async () => {
      const s = withEndpoint();
      const { id } = await s.logProgress({ projectId: 'p', title: 't', content: 'c' });
      const calls: string[] = [];
      const sampling: SummaryProvider = {
        source: 'sampling',
        label: 'test sampling',
        summarise: async (req) => {
          calls.push(req.userPrompt);
          return '  "Sampled summary."  ';
        },
      };
      const out = await s.getContext({ projectId: 'p', id }, { summaryProviders: [sampling] });
      assert.equal(out.summary, 'Sampled summary.');
      assert.equal(out.summarySource, 'sampling');
      assert.equal(calls.length, 1);
      assert.equal(chat.requests.length, 0);
    });

    it('keeps the first cached summary when two agents summarise at once', async () => {
      const s = withEndpoint();
      const { id } = await s.logProgress({ projectId: 'p', title: 't', content: 'c' });
      await ledger.progress.saveSummary('p', id, 'Cached by another agent.', 'sampling');
      const out = await s.getContext({ projectId: 'p', id });
      assert.equal(out.summary, 'Cached by another agent.');
      assert.equal(chat.requests.length, 0);
    });

    it('says an unknown entry is not found, naming it and what to do', async () => {
      const s = service();
      await assert.rejects(
        s.getContext({ projectId: 'mobile-app', id: 'x7k9m2p4q1w3' }),
        (err: unknown) =>
          err instanceof LedgerError && err.code === 'not_found' && err.message === 'Entry not found: x7k9m2p4q1w3 in project mobile-app. Use search_logs to find ids.',
      );
    });

    it('cuts a long model answer to 500 characters', async () => {
      const s = withEndpoint();
      chat.reply = { text: 'word '.repeat(300) };
      const { id } = await s.logProgress({ projectId: 'p', title: 't', content: 'c' });
      const out = await s.getContext({ projectId: 'p', id });
      assert.ok([...out.summary].length <= 500);
    });
  });
});

describe('extractive fallback summary', () => {
  it('keeps whole sentences up to 500 characters', () => {
    const sentence = 'This sentence is exactly fifty characters long ok. ';
    const out = extractiveSummary(sentence.repeat(20));
    assert.ok(out.length <= 500);
    assert.ok(out.endsWith('ok.'));
  });

  it('cuts a single very long sentence at a word with an ellipsis', () => {
    const out = extractiveSummary('word '.repeat(400));
    assert.ok([...out].length <= 500);
    assert.ok(out.endsWith('…'));
  });

  it('collapses whitespace and is deterministic', () => {
    assert.equal(extractiveSummary('a\n\n  b\tc'), 'a b c');
    assert.equal(extractiveSummary('x. '.repeat(300)), extractiveSummary('x. '.repeat(300)));
  });
});
