import * as assert from 'node:assert/strict';
import { getContextInput, logProgressInput, searchLogsInput } from '../../../src/core/progress/schemas';
import { LedgerError } from '../../../src/core/errors';
import { parseInput, parseIsoDate } from '../../../src/core/validation';

function refusal(schema: Parameters<typeof parseInput>[0], raw: unknown): string {
  try {
    parseInput(schema, raw);
  } catch (err) {
    assert.ok(err instanceof LedgerError);
    assert.equal(err.code, 'invalid_argument');
    return err.message;
  }
  assert.fail('expected a refusal');
}

const ok = { projectId: 'mobile-app', title: 'Did it', content: 'How it was done' };

describe('validation messages (Agent Progress Tracker specification, README "Tools")', () => {
  it('says projectId is required', () => {
    assert.equal(refusal(logProgressInput, { title: 't', content: 'c' }), 'projectId is required');
  });

  it('refuses a title over 100 characters', () => {
    assert.equal(refusal(logProgressInput, { ...ok, title: 'x'.repeat(101) }), 'title exceeds maximum length of 100 characters');
  });

  it('accepts a title of exactly 100 characters, astral characters counted once', () => {
    assert.equal(parseInput(logProgressInput, { ...ok, title: '😀'.repeat(100) }).title.length, 200);
  });

  it('refuses empty or blank content', () => {
    assert.equal(refusal(logProgressInput, { ...ok, content: '' }), 'content is required and cannot be empty');
    assert.equal(refusal(logProgressInput, { ...ok, content: ' \n\t ' }), 'content is required and cannot be empty');
    assert.equal(refusal(logProgressInput, { projectId: 'p', title: 't' }), 'content is required');
  });

  it('refuses content over 10,000 characters', () => {
    assert.equal(refusal(logProgressInput, { ...ok, content: 'x'.repeat(10_001) }), 'content exceeds maximum length of 10000 characters');
  });

  it('refuses more than 10 tags and tags over 50 characters', () => {
    assert.equal(refusal(logProgressInput, { ...ok, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }), 'tags exceeds maximum of 10 items');
    assert.equal(refusal(logProgressInput, { ...ok, tags: ['ok', 'y'.repeat(51)] }), 'tags[1] exceeds maximum length of 50 characters');
    assert.equal(refusal(logProgressInput, { ...ok, tags: 'auth' }), 'tags must be an array of strings');
    assert.equal(refusal(logProgressInput, { ...ok, tags: [1] }), 'tags[0] must be a string');
  });

  it('names wrong types', () => {
    assert.equal(refusal(logProgressInput, { ...ok, title: 42 }), 'title must be a string');
    assert.equal(refusal(getContextInput, { projectId: 'p', id: 'x', includeFull: 'yes' }), 'includeFull must be true or false');
    assert.equal(refusal(searchLogsInput, { projectId: 'p', limit: '5' }), 'limit must be a number');
    assert.equal(refusal(searchLogsInput, { projectId: 'p', limit: 2.5 }), 'limit must be an integer');
    assert.equal(refusal(searchLogsInput, { projectId: 'p', limit: 101 }), 'limit must be between 1 and 100');
  });

  it('refuses unknown arguments and lists the accepted ones', () => {
    assert.equal(refusal(logProgressInput, { ...ok, project_id: 'x' }), 'Unknown argument "project_id"; accepted: projectId, title, content, tags, agentId');
  });

  it('refuses bad dates with the seed message', () => {
    assert.equal(refusal(searchLogsInput, { projectId: 'p', startDate: 'yesterday' }), 'Invalid date format for startDate: expected ISO 8601');
    assert.equal(refusal(searchLogsInput, { projectId: 'p', endDate: '2025-02-30' }), 'Invalid date format for endDate: expected ISO 8601');
  });

  it('reports several problems at once', () => {
    const message = refusal(logProgressInput, { projectId: '', title: 'x'.repeat(101), content: 'c' });
    assert.equal(message, 'projectId is required and cannot be empty; title exceeds maximum length of 100 characters');
  });

  it('refuses a project id with control characters and non-object arguments', () => {
    assert.match(refusal(logProgressInput, { ...ok, projectId: 'a\nb' }), /projectId must not contain control characters/);
    assert.equal(refusal(logProgressInput, [1, 2]), 'Arguments must be a JSON object');
  });
});

describe('ISO 8601 dates', () => {
  it('parses dates, date-times, fractions and offsets into UTC', () => {
    assert.deepEqual(parseIsoDate('2025-06-15'), { iso: '2025-06-15T00:00:00.000Z', dateOnly: true });
    assert.equal(parseIsoDate('2025-06-15T14:32:00Z')?.iso, '2025-06-15T14:32:00.000Z');
    assert.equal(parseIsoDate('2025-06-15T14:32:00.123456+02:00')?.iso, '2025-06-15T12:32:00.123Z');
    assert.equal(parseIsoDate('2025-06-15T14:32')?.iso, '2025-06-15T14:32:00.000Z');
  });

  it('refuses what is not a date', () => {
    for (const bad of ['', 'now', '2025-13-01', '2025-06-15T25:00:00Z', '15/06/2025', '2025-06-15T14:32:00Zjunk']) {
      assert.equal(parseIsoDate(bad), undefined, bad);
    }
  });
});
