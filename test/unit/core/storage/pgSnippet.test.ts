// The snippets of ranked search on PostgreSQL (src/core/storage/postgres/snippet.ts): up to 14
// words of the content around the query's words, read as the search vectors read them
// (diacritics removed, lowercased), with an ellipsis where the text goes on; the title when the
// content holds no whole AND group of the query.

import * as assert from 'node:assert/strict';
import { parseFullText } from '../../../../src/core/storage/sqlite/search';
import { SNIPPET_WORDS, snippetOf } from '../../../../src/core/storage/postgres/snippet';

const snip = (text: string, title: string, content: string): string => snippetOf(parseFullText(text)!, title, content);
const words = (n: number, from = 0): string => Array.from({ length: n }, (_, i) => `w${from + i}`).join(' ');

describe('snippets of ranked search on PostgreSQL', () => {
  it('shows the words around the first match, three before it, with ellipses where the content goes on', () => {
    const content = `${words(30)} found ${words(30, 30)}`;
    assert.equal(snip('found', 'A title', content), `…w27 w28 w29 found ${words(10, 30)}…`);
    assert.equal(snip('found', 'A title', 'found at the start, and then nothing else here'), 'found at the start, and then nothing else here');
    assert.equal(snip('w1', 'A title', words(40)), `w0 w1 ${words(12, 2)}…`, 'at the start: no ellipsis before');
    assert.equal(snip('w39', 'A title', words(40)), `…${words(14, 26)}`, 'at the end: the last 14 words');
  });

  it('prefers the window that shows the most of the query, then the most matches', () => {
    const content = `alpha ${words(20)} alpha beta ${words(20, 20)} gamma`;
    assert.equal(snip('alpha beta', 't', content), `…w17 w18 w19 alpha beta ${words(9, 20)}…`);
    const twice = `alpha ${words(20)} alpha w0 alpha ${words(20, 40)}`;
    assert.equal(snip('alpha', 't', twice), `…w17 w18 w19 alpha w0 alpha ${words(8, 40)}…`);
  });

  it('matches phrases word by word, prefixes, and words with diacritics as the vectors hold them', () => {
    const content = `${words(10)} the lighthouse keeper ${words(10, 10)} lighthouse alone`;
    assert.equal(snip('"lighthouse keeper"', 't', content), `…w8 w9 the lighthouse keeper ${words(9, 10)}…`);
    assert.equal(snip('keep*', 't', `${words(8)} keeping it ${words(8, 8)}`), `…w4 w5 w6 w7 keeping it ${words(8, 8)}`, 'near the end: the last 14 words');
    assert.equal(snip('cafe', 't', `${words(6)} the Café terrace, ${words(10, 6)}`), `…w4 w5 the Café terrace, ${words(9, 6)}…`);
    assert.equal(snip('café', 't', `${words(6)} a cafe ${words(10, 6)}`), `…w4 w5 a cafe ${words(10, 6)}`);
  });

  it("takes the title when the content holds no whole AND group of the query, and the content's start when it has no match at all", () => {
    assert.equal(snip('zeppelin', 'Zeppelin cart', 'nothing of the kind here'), 'Zeppelin cart');
    assert.equal(snip('cart zeppelin', 'Zeppelin cart', 'a cart, but no airship'), 'Zeppelin cart');
    assert.equal(snip('cart OR zeppelin', 'Zeppelin', 'a cart, but no airship'), 'a cart, but no airship');
    assert.equal(snip('zeppelin', '', words(20)), `${words(14)}…`, 'no title: the content');
    assert.equal(snip('zeppelin', 'Zeppelin', ''), 'Zeppelin');
    assert.equal(snip('x', 'Title', '   \n'), 'Title');
  });

  it('leaves negated words aside and keeps the text between the words as it is, its spaces folded', () => {
    assert.equal(snip('deploy -rollback', 't', 'We deploy,\n\n  then (maybe) roll back.'), 'We deploy, then (maybe) roll back.');
    assert.equal(snip('rollback', 'Rollback plan', 'rollback'), 'rollback');
  });

  it('makes a snippet of a long content quickly and never shows more than 14 words', () => {
    const long = Array.from({ length: 20_000 }, (_, i) => (i % 7 === 0 ? 'the' : `w${i}`)).join(' ');
    const started = performance.now();
    const s = snip('the w20', 't', long);
    const took = performance.now() - started;
    // The first window with both words and three matches.
    assert.equal(s, '…w11 w12 w13 the w15 w16 w17 w18 w19 w20 the w22 w23 w24…');
    assert.ok(s.replace(/…/g, '').split(' ').length <= SNIPPET_WORDS);
    assert.ok(took < 1000, `${took} ms`);
  });
});
