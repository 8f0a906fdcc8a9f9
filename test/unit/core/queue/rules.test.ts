import * as assert from 'node:assert/strict';
import { apiKeyMatches, hashApiKey, newApiKey } from '../../../../src/core/queue/apiKeys';
import { parseCsv, parseTaskFile } from '../../../../src/core/queue/importFile';
import { reaperDelay, REAPER_MIN_DELAY_MS } from '../../../../src/core/queue/reaper';
import {
  addMinutes,
  afterFailure,
  interpolate,
  presentSince,
  retryBackoffUntil,
  templateVariables,
  validateTemplate,
  variablesKey,
  variablesProblem,
} from '../../../../src/core/queue/rules';
import { LedgerError } from '../../../../src/core/errors';

describe('queue rules', () => {
  it('finds the variables of a template, once each, in order', () => {
    assert.deepEqual(templateVariables('Summarise {{threadId}} to {{ out }} then {{threadId}} again'), ['threadId', 'out']);
    assert.deepEqual(templateVariables('no variables {{ }} {{1x}}'), []);
  });

  it('interpolates values as they are, touching nothing else', () => {
    assert.equal(interpolate('Thread {{id}}: {{ note }} {{missing}}', { id: '42', note: '{{id}} $1 \\n' }), 'Thread 42: {{id}} $1 \\n ');
  });

  it('names missing and unknown variables', () => {
    assert.equal(variablesProblem('t', ['a', 'b'], { a: '1' }), 'Variables for task type "t": missing "b". It takes exactly: a, b');
    assert.equal(variablesProblem('t', ['a'], { a: '1', z: '2' }), 'Variables for task type "t": unknown "z". It takes exactly: a');
    assert.equal(variablesProblem('t', [], undefined), undefined);
  });

  it('checks a template against the variables declared for it', () => {
    assert.deepEqual(validateTemplate('{{a}} {{b}}', undefined), ['a', 'b']);
    assert.deepEqual(validateTemplate('{{a}}', ['a', 'extra']), ['a', 'extra']);
    assert.throws(
      () => validateTemplate('{{a}} {{b}}', ['a']),
      (e: unknown) => e instanceof LedgerError && /uses \{\{b\}\}, which variables does not list/.test(e.message),
    );
    assert.throws(() => validateTemplate('{{a}}', ['a', 'bad name']), /variables must be names/);
  });

  it('keys duplicates by the variables whatever their order', () => {
    assert.equal(variablesKey({ b: '2', a: '1' }), variablesKey({ a: '1', b: '2' }));
    assert.notEqual(variablesKey({ a: '1' }), variablesKey({ a: '2' }));
    assert.equal(variablesKey({}), null);
  });

  it('requeues a failure while retries remain, then fails it', () => {
    assert.deepEqual(afterFailure({ retryCount: 0, maxRetries: 2 }, true), { status: 'queued', retryCount: 1 });
    assert.deepEqual(afterFailure({ retryCount: 2, maxRetries: 2 }, true), { status: 'failed', retryCount: 2 });
    assert.deepEqual(afterFailure({ retryCount: 0, maxRetries: 5 }, false), { status: 'failed', retryCount: 0 });
  });

  it('keeps a failed task from its agent for one lease of the task, at most a minute', () => {
    assert.equal(retryBackoffUntil('2025-01-01T00:00:00.000Z', 0.1), '2025-01-01T00:00:06.000Z');
    assert.equal(retryBackoffUntil('2025-01-01T00:00:00.000Z', 10), '2025-01-01T00:01:00.000Z');
    assert.equal(presentSince('2025-01-01T00:01:00.000Z'), '2025-01-01T00:00:00.000Z');
  });

  it('wakes the reaper at the shortest interval or just after the next lease, within its bounds', () => {
    const now = Date.parse('2025-01-01T00:00:00.000Z');
    assert.equal(reaperDelay({ intervalMinutes: undefined, nextLeaseExpiresAt: undefined }, now, 60_000), 60_000);
    assert.equal(reaperDelay({ intervalMinutes: 0.05, nextLeaseExpiresAt: undefined }, now, 60_000), 3_000);
    assert.equal(reaperDelay({ intervalMinutes: 1, nextLeaseExpiresAt: '2025-01-01T00:00:02.000Z' }, now, 60_000), 2_020);
    assert.equal(reaperDelay({ intervalMinutes: 1, nextLeaseExpiresAt: '2024-12-31T23:00:00.000Z' }, now, 60_000), REAPER_MIN_DELAY_MS);
  });

  it('adds fractions of a minute to a time', () => {
    assert.equal(addMinutes('2025-01-01T00:00:00.000Z', 0.5), '2025-01-01T00:00:30.000Z');
    assert.equal(addMinutes('2025-01-01T00:00:00.000Z', 0.01), '2025-01-01T00:00:00.600Z');
  });
});

describe('agent API keys', () => {
  it('are random, hashed, and compared in constant time', () => {
    const key = newApiKey();
    assert.match(key, /^apk_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(newApiKey(), key);
    const hash = hashApiKey(key);
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.ok(!hash.includes(key));
    assert.equal(apiKeyMatches(key, hash), true);
    assert.equal(apiKeyMatches(key + 'x', hash), false);
    assert.equal(apiKeyMatches('', hash), false);
  });
});

describe('task files', () => {
  it('reads CSV with quotes, doubled quotes, CRLF, a BOM, and variables as columns', () => {
    assert.deepEqual(parseCsv('a,b\r\n"x, y","he said ""hi"""\n\n1,2'), [
      ['a', 'b'],
      ['x, y', 'he said "hi"'],
      ['1', '2'],
    ]);
    assert.deepEqual(parseTaskFile('\ufefftype,threadId,out\nsummarise,1,a.md\n"summarise","2","b\nc"\n', 'tasks.csv'), [
      { typeId: 'summarise', variables: { threadId: '1', out: 'a.md' } },
      { typeId: 'summarise', variables: { threadId: '2', out: 'b\nc' } },
    ]);
    assert.deepEqual(parseTaskFile('instructions\nDo one\nDo two\n', 'plain.csv'), [{ instructions: 'Do one' }, { instructions: 'Do two' }]);
  });

  it('reads a JSON array and JSON lines', () => {
    assert.deepEqual(parseTaskFile('[{"instructions": "a"}, {"typeId": "t", "variables": {"x": "1"}}]', 'f.json'), [{ instructions: 'a' }, { typeId: 't', variables: { x: '1' } }]);
    assert.deepEqual(parseTaskFile('{"instructions": "a"}\n\n{"instructions": "b"}\n', 'f.jsonl'), [{ instructions: 'a' }, { instructions: 'b' }]);
  });

  it('says what is wrong with a file it cannot read', () => {
    assert.throws(() => parseTaskFile('', 'f.json'), /f\.json is empty/);
    assert.throws(() => parseTaskFile('[{"a": ', 'f.json'), /f\.json is not valid JSON/);
    assert.throws(() => parseTaskFile('{"a": 1}\n{oops', 'f.jsonl'), /f\.jsonl line 2 is not valid JSON/);
    assert.throws(() => parseTaskFile('a,b\n"open', 'f.csv'), /ends inside a quoted field/);
  });
});
