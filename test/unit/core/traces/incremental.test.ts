// Incremental indexing on real files in temp folders: unchanged files are not read, grown
// append-only files are read from where the last read stopped, a line still being written waits
// for its newline, replaced and deleted files are noticed, read-only transcripts are fine.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { claudeLines, copyTree, FIXTURE_HOME, serviceFor, writeClaude, writeCodex } from '../../../helpers/traceFiles';
import { tempDir, useTempDirs } from '../../../helpers/tmp';

const C1 = '3c02559b-3c42-4cdd-b64e-2ec636ec8a8f';
const C1_FILE = path.join('.claude', 'projects', '-home-dev-acme-shop', `${C1}.jsonl`);
const G2_FILE = path.join('.gemini', 'tmp', 'acme-shop', 'chats', 'session-2026-05-14T07-41-5776bca4.jsonl');

function userLine(sessionId: string, text: string, ts: string): string {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd: '/home/dev/acme-shop',
    sessionId,
    version: '2.1.140',
    type: 'user',
    message: { role: 'user', content: text },
    uuid: `u-${ts}`,
    timestamp: ts,
  });
}

describe('incremental trace indexing', () => {
  useTempDirs();

  it('reads nothing on a refresh when no file changed', async () => {
    const home = tempDir();
    copyTree(FIXTURE_HOME, home);
    const service = serviceFor(home);
    const first = await service.refresh(true);
    assert.equal(first.parsed, 11);
    const again = await service.refresh(true);
    assert.deepEqual({ parsed: again.parsed, tailed: again.tailed, bytesRead: again.bytesRead, unchanged: again.unchanged }, { parsed: 0, tailed: 0, bytesRead: 0, unchanged: 11 });
  });

  it('reads only the appended bytes of a grown Claude transcript, keeping what it knew', async () => {
    const home = tempDir();
    copyTree(FIXTURE_HOME, home);
    const service = serviceFor(home);
    await service.refresh(true);
    const before = service.index.get(C1)!.builder;
    assert.equal(before.humanTurns, 6);
    const added = `${userLine(C1, 'One more thing: bump the version', '2026-05-04T01:20:00.000Z')}\n${JSON.stringify({ type: 'a-record-type-from-the-future', timestamp: '2026-05-04T01:20:01.000Z' })}\n`;
    fs.appendFileSync(path.join(home, C1_FILE), added);
    const stats = await service.refresh(true);
    assert.deepEqual({ parsed: stats.parsed, tailed: stats.tailed, bytesRead: stats.bytesRead }, { parsed: 0, tailed: 1, bytesRead: Buffer.byteLength(added) });
    const after = service.index.get(C1)!;
    assert.equal(after.builder.humanTurns, 7);
    assert.equal(after.builder.toolCalls.length, 10);
    assert.equal(after.builder.tokens.output, 1942, 'tokens counted once');
    assert.equal(after.end, '2026-05-04T01:20:01.000Z');
    assert.equal(after.builder.turns[6]!.userMessage, 'One more thing: bump the version');
  });

  it('waits for the newline of a line still being written, then counts it once', async () => {
    const home = tempDir();
    const s = writeClaude(home, { turns: 2, callsPerTurn: 1 });
    const extra = userLine(s.id, 'A prompt written in two parts', '2026-03-01T10:00:00.000Z');
    fs.appendFileSync(s.file, extra.slice(0, 40));
    const service = serviceFor(home);
    await service.refresh(true);
    const session = () => service.index.get(s.id)!;
    assert.equal(session().builder.humanTurns, 2);
    assert.equal(service.index.pendingBytes(session()), 40);
    assert.equal(session().malformed, 0);
    fs.appendFileSync(s.file, `${extra.slice(40)}\n`);
    const stats = await service.refresh(true);
    assert.equal(stats.tailed, 1);
    assert.equal(session().builder.humanTurns, 3);
    assert.equal(service.index.pendingBytes(session()), 0);
    await service.refresh(true);
    assert.equal(session().builder.humanTurns, 3, 'not counted twice');
  });

  it('re-reads a file replaced by a shorter one, and forgets a deleted one', async () => {
    const home = tempDir();
    const a = writeClaude(home, { turns: 4, seed: 11 });
    const b = writeCodex(home, { turns: 2, seed: 12 });
    const service = serviceFor(home);
    await service.refresh(true);
    assert.equal(service.index.get(a.id)!.builder.humanTurns, 4);
    const shorter = claudeLines({ id: a.id, turns: 1, seed: 11 });
    fs.writeFileSync(a.file, shorter.lines.join('\n') + '\n');
    fs.rmSync(b.file);
    const stats = await service.refresh(true);
    assert.equal(stats.parsed, 1);
    assert.equal(stats.removed, 1);
    assert.equal(service.index.get(a.id)!.builder.humanTurns, 1);
    assert.equal(service.index.get(b.id), undefined);
    assert.deepEqual(
      service.index.sessions.map((s) => s.id),
      [a.id],
    );
  });

  it('re-reads a Gemini log whole when it grows (later lines rewrite earlier ones)', async () => {
    const home = tempDir();
    copyTree(FIXTURE_HOME, home);
    const service = serviceFor(home);
    await service.refresh(true);
    const file = path.join(home, G2_FILE);
    // Finish the truncated last line's record properly, then rewind past the last prompt.
    fs.appendFileSync(file, `\n${JSON.stringify({ $rewindTo: '34eeaac9-0000-0000-0000-000000000000' })}\n`);
    const stats = await service.refresh(true);
    assert.equal(stats.parsed, 1);
    assert.equal(stats.tailed, 0);
    const g2 = service.index.get('5776bca4-cd1a-437a-adae-f038239843da')!;
    assert.equal(g2.malformed, 1, 'the cut line, now terminated, is still not JSON');
    assert.equal(g2.builder.humanTurns, 0, 'an unknown id rewinds everything');
  });

  it('finds a new session on the next refresh', async () => {
    const home = tempDir();
    copyTree(FIXTURE_HOME, home);
    const service = serviceFor(home);
    await service.refresh(true);
    const fresh = writeCodex(home, { start: new Date('2026-06-01T00:00:00Z'), seed: 5 });
    const stats = await service.refresh(true);
    assert.equal(stats.parsed, 1);
    assert.equal(service.index.sessions[0]!.id, fresh.id, 'the newest first');
  });

  it('indexes read-only transcripts in read-only folders, and leaves them as they were', async () => {
    const home = tempDir();
    copyTree(FIXTURE_HOME, home);
    const entries = fs.readdirSync(home, { recursive: true, withFileTypes: true });
    // Root may write whatever the modes say, so the modes alone prove nothing there: the tree is
    // also compared before and after, which holds for every user.
    const tree = () =>
      entries.map((e) => {
        const p = path.join(e.parentPath, e.name);
        const st = fs.statSync(p);
        return [p, st.isDirectory() ? fs.readdirSync(p).sort().join(',') : fs.readFileSync(p, 'utf8'), st.mtimeMs];
      });
    for (const e of entries) fs.chmodSync(path.join(e.parentPath, e.name), e.isDirectory() ? 0o555 : 0o444);
    try {
      const before = tree();
      const service = serviceFor(home);
      const stats = await service.refresh(true);
      assert.equal(stats.parsed, 11);
      assert.equal(service.index.sessions.length, 8);
      assert.deepEqual(tree(), before, 'nothing under the transcript folders was created, changed or touched');
    } finally {
      for (const e of entries.reverse()) fs.chmodSync(path.join(e.parentPath, e.name), e.isDirectory() ? 0o755 : 0o644);
    }
  });

  it('throttles refreshes to one per interval unless forced, and coalesces concurrent ones', async () => {
    const home = tempDir();
    writeClaude(home, { seed: 3 });
    let now = 1_000_000;
    const service = serviceFor(home, { minRefreshMs: 1000, now: () => now });
    const [a, b] = await Promise.all([service.refresh(), service.refresh()]);
    assert.equal(a, b, 'one refresh served both');
    writeClaude(home, { seed: 4 });
    await service.refresh();
    assert.equal(service.index.sessions.length, 1, 'within the interval: not re-scanned');
    now += 1500;
    await service.refresh();
    assert.equal(service.index.sessions.length, 2);
  });
});
