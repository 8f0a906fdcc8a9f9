// The shared fixtures (test/fixtures/traces/home, a fake $HOME) indexed exactly as
// test/fixtures/traces/EXPECTED.md says: sessions, times, turns, tool calls, failures, loops,
// tokens, truncated lines, children and projects, for all four providers.

import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyse } from '../../../../src/core/traces/analysis';
import type { IndexedSession } from '../../../../src/core/traces/traceIndex';
import type { TraceService } from '../../../../src/core/traces/traceService';
import { FIXTURE_HOME, serviceFor } from '../../../helpers/traceFiles';

interface Expected {
  id: string;
  provider: string;
  kind: string;
  start: string;
  end: string;
  turns: number;
  calls: string[];
  failed: number;
  nonZero?: number;
  longestRun: number;
  loop: boolean;
  tokens: Partial<Record<'input' | 'output' | 'cache_creation' | 'cache_read' | 'reasoning' | 'total', number>>;
  malformed: number;
  parent?: string;
  title?: string | null;
  models?: string[];
  branch?: string | null;
  version?: string | null;
}

const C1 = '3c02559b-3c42-4cdd-b64e-2ec636ec8a8f';
const C2 = '9c7f60c1-3c64-4c18-ab7e-bb9753542852';
const X1 = '019df5b8-f0b4-71fb-85dd-aa841d6d20ab';
const X4 = '019df5bb-23af-7702-b35b-8f8a44ece40f';
const X2 = '019e0165-cb8d-785e-ab4d-9a0f69dd2422';
const G1 = '2a7b4f2a-ea33-452e-bedb-619012b5d460';
const G1SUB = 'ab8f5d12-a45b-4520-8c8e-27fad7c4126d';
const G2 = '5776bca4-cd1a-437a-adae-f038239843da';
const V1 = '57724b1a-4a51-4749-8570-bac83eb8aee0';
const V2 = '83e150a6-f6ab-4e15-9790-8e35cae2c9e4';

const EXPECTED: Expected[] = [
  {
    id: C1,
    provider: 'claude_code',
    kind: 'main',
    start: '2026-05-04T01:12:05.120Z',
    end: '2026-05-04T01:15:53.220Z',
    turns: 6,
    calls: ['Read', 'Edit', 'Bash', 'Edit', 'Bash', 'Task', 'Write', 'Bash', 'Edit', 'Bash'],
    failed: 1,
    longestRun: 1,
    loop: false,
    tokens: { input: 102, output: 1942, cache_creation: 10082, cache_read: 308242 },
    malformed: 0,
    title: 'Cart coupon codes: applyCoupon(), tests, README',
    models: ['claude-opus-4-5-20251101'],
    branch: 'feature/coupons',
    version: '2.1.140',
  },
  {
    id: 'agent-a7f3c21',
    provider: 'claude_code',
    kind: 'subagent',
    start: '2026-05-04T01:13:51.220Z',
    end: '2026-05-04T01:13:58.320Z',
    turns: 0,
    calls: ['Glob', 'Grep'],
    failed: 0,
    longestRun: 1,
    loop: false,
    tokens: { input: 5980, output: 193, cache_creation: 0, cache_read: 3810 },
    malformed: 0,
    parent: C1,
    models: ['claude-haiku-4-5-20251001'],
  },
  {
    id: C2,
    provider: 'claude_code',
    kind: 'main',
    start: '2026-05-06T08:30:00.000Z',
    end: '2026-05-06T08:33:14.600Z',
    turns: 2,
    calls: ['Bash', 'Bash', 'Bash', 'Bash', 'Bash', 'Read'],
    failed: 5,
    longestRun: 5,
    loop: true,
    tokens: { input: 24, output: 462, cache_creation: 1700, cache_read: 99300 },
    malformed: 1,
    branch: 'main',
  },
  {
    id: X1,
    provider: 'codex',
    kind: 'main',
    start: '2026-05-05T01:20:31.412Z',
    end: '2026-05-05T01:23:39.027Z',
    turns: 5,
    calls: ['shell_command', 'apply_patch', 'shell_command', 'apply_patch', 'shell_command', 'apply_patch'],
    failed: 1,
    longestRun: 1,
    loop: false,
    tokens: { input: 132320, cache_read: 125952, output: 1424, reasoning: 432, total: 133744 },
    malformed: 0,
    models: ['gpt-5.1-codex-max'],
    branch: 'feature/search',
    version: '0.120.0',
  },
  {
    id: X4,
    provider: 'codex',
    kind: 'review',
    start: '2026-05-05T01:22:55.535Z',
    end: '2026-05-05T01:23:06.397Z',
    turns: 1,
    calls: ['shell_command'],
    failed: 0,
    longestRun: 1,
    loop: false,
    tokens: { input: 15300, cache_read: 7168, output: 530, reasoning: 320, total: 15830 },
    malformed: 0,
    parent: X1,
  },
  {
    id: X2,
    provider: 'codex',
    kind: 'main',
    start: '2026-05-07T07:45:09.005Z',
    end: '2026-05-07T07:45:33.066Z',
    turns: 1,
    calls: ['shell_command', 'shell_command', 'shell_command', 'shell_command', 'shell_command'],
    failed: 5,
    longestRun: 5,
    loop: true,
    tokens: { input: 49700, cache_read: 46700, output: 260, reasoning: 160, total: 49960 },
    malformed: 1,
    branch: 'main',
  },
  {
    id: G1,
    provider: 'gemini',
    kind: 'main',
    start: '2026-05-12T10:03:12.511Z',
    end: '2026-05-12T10:06:00.511Z',
    turns: 5,
    calls: ['codebase_investigator', 'read_file', 'read_file', 'replace', 'run_shell_command', 'run_shell_command', 'replace'],
    failed: 1,
    longestRun: 1,
    loop: false,
    tokens: { input: 134000, output: 993, cache_read: 116224, reasoning: 660, total: 135653 },
    malformed: 0,
    title: 'Fix N+1 query on order history page',
    models: ['gemini-2.5-pro', 'gemini-2.5-flash'],
  },
  {
    id: G1SUB,
    provider: 'gemini',
    kind: 'subagent',
    start: '2026-05-12T10:03:16.411Z',
    end: '2026-05-12T10:03:34.611Z',
    turns: 1,
    calls: ['glob', 'grep_search', 'complete_task'],
    failed: 0,
    longestRun: 1,
    loop: false,
    tokens: { input: 11000, output: 165, cache_read: 6656, reasoning: 120, total: 11285 },
    malformed: 0,
    parent: G1,
    models: ['gemini-2.5-flash'],
  },
  {
    id: G2,
    provider: 'gemini',
    kind: 'main',
    start: '2026-05-14T07:41:55.020Z',
    end: '2026-05-14T07:43:41.220Z',
    turns: 3,
    calls: ['run_shell_command', 'run_shell_command', 'run_shell_command', 'run_shell_command', 'replace', 'run_shell_command'],
    failed: 0,
    nonZero: 4,
    longestRun: 4,
    loop: true,
    tokens: { input: 64700, output: 310, cache_read: 49664, reasoning: 140, total: 65150 },
    malformed: 1,
  },
  {
    id: V1,
    provider: 'vscode_copilot',
    kind: 'main',
    start: '2026-05-09T06:00:04.250Z',
    end: '2026-05-09T06:04:18.450Z',
    turns: 5,
    calls: ['file_search', 'read_file', 'create_file', 'create_file', 'run_in_terminal', 'read_file'],
    failed: 1,
    longestRun: 1,
    loop: false,
    tokens: { input: 83760, output: 1657 },
    malformed: 0,
    title: 'Add wishlist feature',
    models: ['copilot/claude-sonnet-4'],
  },
  {
    id: V2,
    provider: 'vscode_copilot',
    kind: 'main',
    start: '2026-05-10T12:00:00.000Z',
    end: '2026-05-10T12:01:19.000Z',
    turns: 2,
    calls: ['run_in_terminal', 'run_in_terminal', 'run_in_terminal', 'run_in_terminal', 'copilot_readFile'],
    failed: 4,
    longestRun: 4,
    loop: true,
    tokens: { input: 22140, output: 470 },
    malformed: 1,
    title: 'Fix npm run build failure',
    models: ['copilot/gpt-5.1'],
  },
];

function hashTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const st = fs.statSync(file);
    out.set(file, `${createHash('sha256').update(fs.readFileSync(file)).digest('hex')}:${st.mtimeMs}:${st.size}`);
  }
  return out;
}

describe('trace indexers on the shared fixtures (EXPECTED.md)', () => {
  let service: TraceService;
  let hashesBefore: Map<string, string>;
  before(async () => {
    hashesBefore = hashTree(FIXTURE_HOME);
    service = serviceFor(FIXTURE_HOME);
    await service.refresh(true);
  });

  const session = (id: string): IndexedSession => {
    const s = service.index.get(id);
    assert.ok(s, `session ${id} is indexed`);
    return s;
  };

  it('finds 8 top-level sessions (2 per provider) and 3 children attached to their parents', () => {
    const top = service.index.sessions;
    assert.equal(top.length, 8);
    const perProvider = top.reduce<Record<string, number>>((acc, s) => ({ ...acc, [s.provider]: (acc[s.provider] ?? 0) + 1 }), {});
    assert.deepEqual(perProvider, { claude_code: 2, codex: 2, gemini: 2, vscode_copilot: 2 });
    assert.deepEqual(new Set(top.map((s) => s.id)), new Set([C1, C2, X1, X2, G1, G2, V1, V2]));
    assert.deepEqual(session(C1).children, ['agent-a7f3c21']);
    assert.deepEqual(session(X1).children, [X4]);
    assert.deepEqual(session(G1).children, [G1SUB]);
    assert.equal([...service.index.allSessions].length, 11, 'logs.json, projects.json, markers, workspace.json and state.vscdb are not sessions');
  });

  it("puts every session in /home/dev/acme-shop, whose hash is Gemini's projectHash", () => {
    for (const s of service.index.allSessions) {
      assert.equal(s.projectRoot, '/home/dev/acme-shop', s.id);
      assert.equal(s.projectHash, '56039c3cf848a15ff538969f95a7dc603e689b117131a26c190146b074c3177b', s.id);
    }
  });

  for (const e of EXPECTED) {
    it(`derives ${e.provider} ${e.id.slice(0, 13)}: times, turns, tool calls, failures, loops, tokens`, () => {
      const s = session(e.id);
      const b = s.builder;
      assert.equal(s.provider, e.provider);
      assert.equal(s.kind, e.kind);
      assert.equal(s.start, e.start, 'start');
      assert.equal(s.end, e.end, 'end');
      assert.equal(b.humanTurns, e.turns, 'user turns');
      assert.deepEqual(
        b.toolCalls.map((c) => c.name),
        e.calls,
        'tool calls in order',
      );
      assert.equal(b.failedCalls, e.failed, 'failed tool calls');
      assert.equal(b.nonZeroExits, e.nonZero ?? 0, 'non-zero exits not flagged as failures');
      const a = analyse(b);
      assert.equal(a.longestRun, e.longestRun, 'longest identical run');
      assert.equal(a.loops.length > 0, e.loop, 'loop');
      for (const [k, v] of Object.entries(e.tokens)) assert.equal(b.tokens[k as keyof typeof b.tokens], v, `tokens.${k}`);
      assert.equal(s.malformed + (service.index.pendingBytes(s) > 0 ? 1 : 0), e.malformed, 'malformed lines');
      assert.equal(s.parentId, e.parent ?? null, 'parent');
      if (e.title !== undefined) assert.equal(s.title, e.title, 'title');
      if (e.models) assert.deepEqual(s.meta.models, e.models, 'models');
      if (e.branch !== undefined) assert.equal(s.meta.gitBranch, e.branch, 'git branch');
      if (e.version !== undefined) assert.equal(s.meta.version, e.version, 'version');
    });
  }

  it('marks the failing calls themselves', () => {
    const failing = (id: string) => session(id).builder.toolCalls.flatMap((c, i) => (c.status === 'error' ? [i] : []));
    assert.deepEqual(failing(C1), [2], 'npx tsc --noEmit is the third call');
    assert.match(session(C1).builder.toolCalls[2]!.label, /^Bash npx tsc --noEmit$/);
    assert.deepEqual(failing(X1), [2]);
    assert.equal(session(X1).builder.toolCalls[2]!.exitCode, 1);
    assert.deepEqual(failing(G1), [1]);
    assert.deepEqual(failing(V1), [5]);
    assert.deepEqual(failing(V2), [0, 1, 2, 3]);
    assert.deepEqual(
      session(G2).builder.toolCalls.map((c) => c.exitCode),
      [1, 1, 1, 1, null, null],
    );
  });

  it('reports the loops the fixtures contain, with their length', () => {
    const loop = (id: string) => analyse(session(id).builder).loops.map((l) => [l.label, l.count]);
    assert.deepEqual(loop(C2), [['Bash npx playwright test tests/e2e/checkout.spec.ts', 5]]);
    assert.deepEqual(loop(X2), [['shell_command pnpm run sync:inventory', 5]]);
    assert.deepEqual(loop(G2), [['run_shell_command npm run lint', 4]]);
    assert.deepEqual(loop(V2), [['run_in_terminal npm run build', 4]]);
  });

  it('keeps Unicode prompts intact and does not count interruptions, context or rewound prompts as turns', () => {
    const prompts = (id: string) =>
      session(id)
        .builder.turns.filter((t) => t.human)
        .map((t) => t.userMessage);
    assert.match(prompts(C1)[0]!, /🛒$/);
    assert.match(prompts(C1)[3]!, /🎉/);
    assert.match(prompts(C2)[1]!, /「今すぐ支払う」/);
    assert.equal(session(C2).builder.interruptions, 1);
    assert.match(prompts(X1)[0]!, /🔍/);
    assert.doesNotMatch(prompts(X1).join('\n'), /AGENTS\.md|environment_context/);
    assert.ok(!prompts(G2).some((p) => /eslintrc/.test(p ?? '')), 'the rewound prompt is gone');
    assert.equal(prompts(V1)[4], 'ありがとう 🙏');
  });

  it('counts the split Claude messages once (the naive sums are the traps)', () => {
    assert.notEqual(session(C1).builder.tokens.output, 1977);
    assert.notEqual(session(C2).builder.tokens.output, 480);
    assert.notEqual(session(X1).builder.tokens.output, 2079);
    assert.equal(session(C1).builder.tokens.input + session('agent-a7f3c21').builder.tokens.input, 6082);
    assert.equal(session(C1).builder.tokens.output + session('agent-a7f3c21').builder.tokens.output, 2135);
  });

  it('never changes a transcript: every fixture file has the same bytes and mtime after indexing', async () => {
    await service.getSessionDetails({ session_id: C1, detail_level: 'full' });
    await service.searchEventPreviews({ query: 'npm' });
    assert.deepEqual(hashTree(FIXTURE_HOME), hashesBefore);
  });
});
