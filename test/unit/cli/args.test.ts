import * as assert from 'node:assert/strict';
import { flagValue, flagValues, parseArgv, UsageError } from '../../../src/cli/args';

const spec = { json: {}, tag: { value: true, repeat: true }, key: { value: true }, help: { alias: 'h' } };

describe('CLI arguments', () => {
  it('reads flags with and without =, repeated flags, booleans and positionals', () => {
    const p = parseArgv(['show', '--tag', 'a', '--tag=b', '--json', '--key=k1', 'x'], spec);
    assert.deepEqual(p.positionals, ['show', 'x']);
    assert.deepEqual(flagValues(p, 'tag'), ['a', 'b']);
    assert.equal(flagValue(p, 'key'), 'k1');
    assert.equal(p.flags.get('json'), true);
    assert.equal(parseArgv(['-h'], spec).flags.get('help'), true);
  });

  it('takes an id that starts with a dash as a positional, as nanoid ids may', () => {
    assert.deepEqual(parseArgv(['cancel-task', '-zhgfKSFwA0t'], spec).positionals, ['cancel-task', '-zhgfKSFwA0t']);
    assert.deepEqual(parseArgv(['show', '-Ek7WifXUzVW', '--json'], spec).positionals, ['show', '-Ek7WifXUzVW']);
    assert.deepEqual(parseArgv(['show', '--', '--odd'], spec).positionals, ['show', '--odd']);
  });

  it('names an unknown option, a missing value and a repeated single flag', () => {
    assert.throws(
      () => parseArgv(['--nope'], spec),
      (e: unknown) => e instanceof UsageError && e.message === 'Unknown option --nope',
    );
    assert.throws(() => parseArgv(['-x'], spec), /Unknown option -x/);
    assert.throws(() => parseArgv(['--key'], spec), /--key needs a value/);
    assert.throws(() => parseArgv(['--key', 'a', '--key', 'b'], spec), /--key was given twice/);
    assert.throws(() => parseArgv(['--json=1'], spec), /--json takes no value/);
  });
});
