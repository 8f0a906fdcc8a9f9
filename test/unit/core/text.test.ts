import * as assert from 'node:assert/strict';
import { codePointLength, fold, truncateText, unstorableReason } from '../../../src/core/text';

describe('text rules', () => {
  it('counts code points, not UTF-16 units', () => {
    assert.equal(codePointLength('abc'), 3);
    assert.equal(codePointLength('😀😀'), 2);
    assert.equal(codePointLength('e\u0301'), 2);
  });

  it('refuses NUL and unpaired surrogates, accepts any other text', () => {
    assert.match(unstorableReason('a\0b') ?? '', /NUL/);
    assert.match(unstorableReason('a\ud800b') ?? '', /surrogate/);
    assert.equal(unstorableReason('<script>alert(1)</script> 😀 \u202e\t\n'), undefined);
  });

  it('folds case and compatibility forms for search', () => {
    assert.equal(fold('ÉCOLE Ｆｕｌｌ'), 'école full');
  });

  it('truncates at a word boundary with an ellipsis and never exceeds the limit', () => {
    const out = truncateText('one two three four five six seven eight nine ten', 20);
    assert.ok(codePointLength(out) <= 20, out);
    assert.ok(out.endsWith('…'));
    assert.equal(truncateText('short', 20), 'short');
  });
});
