// Edge cases the shared fixtures do not cover (test/fixtures/traces/edge-home): older formats of
// each agent, unknown and garbage records, duplicates, compaction, rewinds, hook transcripts.

import * as assert from 'node:assert/strict';
import { analyse } from '../../../../src/core/traces/analysis';
import type { IndexedSession } from '../../../../src/core/traces/traceIndex';
import type { TraceService } from '../../../../src/core/traces/traceService';
import { EDGE_HOME, serviceFor } from '../../../helpers/traceFiles';

const CLAUDE = '11111111-2222-4333-8444-555555555555';
const CODEX = '22222222-3333-4444-8555-666666666666';
const SPAWNED = '33333333-4444-4555-8666-777777777777';
const GEMINI_RESUMED = 'aaaa1111-2222-4333-8444-555566667777';
const GEMINI_JSON = 'bbbb2222-3333-4444-8555-666677778888';
const MUTATION_LOG = 'dddd4444-5555-4666-8777-888899990000';
const HOOK = 'cccc3333-4444-4555-8666-777788889999';
const EMPTY_WINDOW = 'eeee5555-6666-4777-8888-999900001111';

describe('trace indexers on edge cases', () => {
  let service: TraceService;
  before(async () => {
    service = serviceFor(EDGE_HOME);
    await service.refresh(true);
  });
  const session = (id: string): IndexedSession => {
    const s = service.index.get(id);
    assert.ok(s, `session ${id} is indexed`);
    return s;
  };
  const calls = (id: string) => session(id).builder.toolCalls.map((c) => `${c.name}:${c.status}${c.exitCode !== null ? `(${c.exitCode})` : ''}`);

  it('skips files with nothing readable: an empty rollout and a file of garbage are not sessions', () => {
    const ids = [...service.index.allSessions].map((s) => s.id).sort();
    assert.deepEqual(ids, ['agent-b1c2d3e', CLAUDE, CODEX, SPAWNED, GEMINI_RESUMED, GEMINI_JSON, MUTATION_LOG, HOOK, EMPTY_WINDOW].sort());
  });

  it('Claude: skips a garbage line and unknown record types, reads CRLF lines, and takes /rename over the summary', () => {
    const s = session(CLAUDE);
    assert.equal(s.malformed, 1);
    assert.equal(s.title, 'Config loader migration');
    assert.equal(s.start, '2025-10-01T10:00:00.000Z');
    assert.equal(s.end, '2025-10-01T10:00:35.000Z');
    assert.equal(s.meta.version, '1.0.40');
  });

  it('Claude: meta, slash-command and compaction records are not turns; an API error is not a message', () => {
    const b = session(CLAUDE).builder;
    assert.equal(b.humanTurns, 2);
    assert.equal(b.turns[0]!.userMessage, 'Migrate the config loader [image]');
    assert.equal(b.compactions, 1);
    assert.equal(b.counts.Message, 1, 'only "Done."');
    assert.equal(b.counts.Notification, 5);
    assert.deepEqual(session(CLAUDE).meta.models, ['claude-sonnet-4-20250514'], 'the <synthetic> model is not a model');
    assert.deepEqual(b.tokens, { input: 150, output: 30, cache_creation: 0, cache_read: 0, reasoning: 0, total: 180 });
  });

  it('Claude: an older flat agent-*.jsonl is a child of the session its records name', () => {
    const child = session('agent-b1c2d3e');
    assert.equal(child.kind, 'subagent');
    assert.equal(child.parentId, CLAUDE);
    assert.deepEqual(session(CLAUDE).children, ['agent-b1c2d3e']);
    assert.equal(child.builder.humanTurns, 0);
    assert.equal(child.builder.turns[0]!.userMessage, 'Find config loaders', 'the task prompt shows, not as a human turn');
  });

  it('redacts secrets already in the turn previews the index keeps', () => {
    const prompt = session(CLAUDE).builder.turns[1]!.userMessage!;
    assert.doesNotMatch(prompt, /hunter2|sk-ant-api03/);
    assert.match(prompt, /DB_PASSWORD=\[REDACTED\]/);
  });

  it('Codex: reads the bare pre-envelope format (meta line, items, state records) with argv shells and JSON-in-string exit codes', () => {
    const s = session(CODEX);
    assert.equal(s.start, '2025-10-02T08:00:00.000Z');
    assert.equal(s.projectRoot, '/home/dev/legacy-app');
    assert.equal(s.meta.gitBranch, 'legacy');
    assert.equal(s.builder.humanTurns, 1, '<user_instructions> is context, not a prompt');
    assert.deepEqual(calls(CODEX), ['shell:error(2)', 'shell:ok(0)']);
    assert.equal(s.builder.toolCalls[0]!.label, 'shell bash -lc npm run build:legacy');
  });

  it("Codex: a thread_spawn child names its parent and its replay of the parent's history is skipped", () => {
    const s = session(SPAWNED);
    assert.equal(s.kind, 'subagent');
    assert.equal(s.parentId, CODEX);
    assert.deepEqual(session(CODEX).children, [SPAWNED]);
    assert.equal(s.builder.humanTurns, 1);
    assert.equal(s.builder.turns[0]!.userMessage, 'Write tests for the loader');
    assert.equal(s.builder.tokens.total, 1040, "the replayed 90,900 tokens are the parent's");
    assert.deepEqual(calls(SPAWNED), ['apply_patch:error(0)'], 'patch_apply_end success:false fails the call after its output');
    assert.equal(s.builder.interruptions, 1);
  });

  it('Gemini: a .jsonl beside the older .json of the same session wins; an unknown $rewindTo clears; the hash folder finds its project', () => {
    const s = session(GEMINI_RESUMED);
    assert.equal(s.format, 'gemini-jsonl');
    assert.equal(s.builder.humanTurns, 1);
    assert.equal(s.builder.turns[0]!.userMessage, 'Start over: only document it');
    assert.equal(s.start, '2025-11-02T08:00:00.000Z');
    assert.equal(s.end, '2025-11-03T09:01:00.000Z');
    assert.equal(s.projectRoot, '/home/dev/legacy-app', 'the legacy hash folder is sha256 of a folder another agent worked in');
  });

  it('Gemini: reads the older pretty-printed .json (string content, absolute_path)', () => {
    const s = session(GEMINI_JSON);
    assert.equal(s.format, 'gemini-json');
    assert.equal(s.title, 'Read the old loader');
    assert.deepEqual(calls(GEMINI_JSON), ['read_file:ok']);
    assert.equal(s.builder.toolCalls[0]!.label, 'read_file /home/dev/legacy-app/src/old.ts');
    assert.equal(s.builder.tokens.total, 330);
  });

  it('VS Code: replays a mutation log from its last full state (kind 0), with deletes, pushes and sets after it', () => {
    const s = session(MUTATION_LOG);
    assert.equal(s.title, 'Renamed chat');
    assert.deepEqual(
      s.builder.turns.map((t) => t.userMessage),
      ['First question', 'Second question', 'Third question'],
    );
    assert.equal(s.builder.tokens.total, 2020, 'the third request has no token counts');
    assert.equal(s.end, '2025-12-01T10:03:21.000Z');
    assert.equal(s.projectRoot, '/home/dev/multi', "a multi-root workspace: the .code-workspace file's folder");
    assert.equal(s.builder.counts.Notification, 1, 'the failed request');
  });

  it("VS Code: reads Copilot's hook transcripts and old empty-window chats with plain-string messages", () => {
    const hook = session(HOOK);
    assert.equal(hook.format, 'copilot-transcript');
    assert.equal(hook.projectRoot, '/home/dev/multi/api');
    assert.deepEqual(calls(HOOK), ['run_in_terminal:error']);
    assert.equal(hook.builder.counts.Reasoning, 1);
    const empty = session(EMPTY_WINDOW);
    assert.equal(empty.projectRoot, null);
    assert.equal(empty.builder.turns[0]!.userMessage, 'Plain string message from an old build');
    assert.deepEqual(calls(EMPTY_WINDOW), ['mcp_github_search:error']);
  });

  it('scores each session from its findings', () => {
    assert.equal(analyse(session(CODEX).builder).score, 92);
    assert.equal(analyse(session(GEMINI_JSON).builder).score, 100);
  });
});
