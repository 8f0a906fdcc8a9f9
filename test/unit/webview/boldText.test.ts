// The session page's `**bold**` in step messages and reasoning: markers paired and dropped, text
// kept as text (the page puts each segment in with textContent).

import * as assert from 'node:assert/strict';
import { boldSegments } from '../../../src/webview/session/boldText';

describe('bold in session step text', () => {
  it('drops the markers of a pair and marks the words between them bold', () => {
    assert.deepEqual(boldSegments('**Planning the cart fix**\n\nI will read the tests first.'), [
      { text: 'Planning the cart fix', bold: true },
      { text: '\n\nI will read the tests first.', bold: false },
    ]);
    assert.deepEqual(boldSegments('Ran **two** of **three** suites'), [
      { text: 'Ran ', bold: false },
      { text: 'two', bold: true },
      { text: ' of ', bold: false },
      { text: 'three', bold: true },
      { text: ' suites', bold: false },
    ]);
  });

  it('leaves a lone marker, an empty pair and a pair across lines as written', () => {
    assert.deepEqual(boldSegments('a ** b'), [{ text: 'a ** b', bold: false }]);
    assert.deepEqual(boldSegments('glob **/*.ts and ****'), [{ text: 'glob **/*.ts and ****', bold: false }]);
    assert.deepEqual(boldSegments('**start\nend**'), [{ text: '**start\nend**', bold: false }]);
  });

  it('keeps markup inside bold as text, for textContent', () => {
    assert.deepEqual(boldSegments('**<img src=x onerror="window.pwned=1">** done'), [
      { text: '<img src=x onerror="window.pwned=1">', bold: true },
      { text: ' done', bold: false },
    ]);
  });
});
