import * as assert from 'node:assert/strict';
import { createLogger, redact } from '../../../src/core/log';

describe('logging', () => {
  it('never prints a registered secret or a key-shaped string', () => {
    const lines: string[] = [];
    const logger = createLogger({ sink: (l) => lines.push(l) });
    logger.addSecret('my-very-secret-value');
    logger.warn('failed with my-very-secret-value and sk-abcdefghijklmnopqrstuvwx and Bearer abcdefghijklmnop123');
    assert.equal(lines.length, 1);
    assert.doesNotMatch(lines[0]!, /my-very-secret-value|sk-abcdef|abcdefghijklmnop123/);
    assert.match(lines[0]!, /\[redacted\]/);
  });

  it('filters by level and says a once-message once', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', sink: (l) => lines.push(l) });
    logger.info('hidden');
    logger.once('k', 'warn', 'shown once');
    logger.once('k', 'warn', 'shown once');
    assert.deepEqual(
      lines.map((l) => l.replace(/^\S+ /, '')),
      ['[warn] shown once'],
    );
  });

  it('redacts without registered secrets too', () => {
    assert.equal(redact('key sk-1234567890abcdefghij end', []), 'key [redacted] end');
  });
});
