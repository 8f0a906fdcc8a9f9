import * as assert from 'node:assert/strict';
import { fullTextMatch, titleTrigramDoc, titleTrigramMatch } from '../../../../src/core/storage/sqlite/search';

describe('search helpers', () => {
  it('indexes the distinct letter and digit trigrams of a title', () => {
    assert.equal(titleTrigramDoc('oauth oauth'), 'oau aut uth');
    assert.equal(titleTrigramDoc('a-b c'), '');
    assert.equal(titleTrigramDoc('日本語テキスト'), '日本語 本語テ 語テキ テキス キスト');
  });

  it('builds a trigram match only from indexable parts of a query', () => {
    assert.equal(titleTrigramMatch('auth'), '"aut" "uth"');
    assert.equal(titleTrigramMatch('a-b'), undefined);
    assert.equal(titleTrigramMatch('x'.repeat(3) + 'yz'.repeat(30))!.split(' ').length <= 12, true);
  });

  it('makes any text a safe full-text query', () => {
    assert.equal(fullTextMatch('jwt tokens'), '"jwt" "tokens"');
    assert.equal(fullTextMatch('"exact phrase" auth*'), '"exact phrase" "auth*"');
    assert.equal(fullTextMatch('jwt -session'), '"jwt" NOT "session"');
    assert.equal(fullTextMatch('a OR b'), '"a" OR "b"');
    assert.equal(fullTextMatch('x AND y'), '"x" "y"');
    assert.equal(fullTextMatch("'); DROP TABLE log_entries; --"), '"DROP" "TABLE" "log entries"');
    assert.equal(fullTextMatch('NEAR( ) ^ * "'), '"NEAR"');
    assert.equal(fullTextMatch('-only'), undefined);
    assert.equal(fullTextMatch('*** ---'), undefined);
  });
});
