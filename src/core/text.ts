// Text rules shared by every toolset: lengths counted in Unicode code points (as JSON Schema's
// maxLength does), the case folding used for case-insensitive search, and what cannot be stored.

/** Number of Unicode code points (a lone surrogate counts as one). */
export function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Why a string cannot be stored byte for byte, or undefined when it can. */
export function unstorableReason(text: string): string | undefined {
  if (text.includes('\0')) return 'contains a NUL character (U+0000), which cannot be stored; remove it';
  if (!text.isWellFormed()) return 'contains an unpaired UTF-16 surrogate (invalid Unicode); send valid UTF-8 text';
  // sql.js decodes every text column with a TextDecoder, which drops a leading byte order mark.
  if (text.startsWith('\ufeff')) return 'starts with a byte order mark (U+FEFF), which cannot be stored; remove it';
  return undefined;
}

/** Case- and width-insensitive form used to match a query inside titles and tags. */
export function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** Cuts text to at most `max` code points, at a word boundary when one is near, with an ellipsis. */
export function truncateText(text: string, max: number): string {
  if (codePointLength(text) <= max) return text;
  const chars = Array.from(text).slice(0, max - 1);
  let cut = chars.join('');
  const space = cut.search(/\s\S*$/);
  if (space > max * 0.6) cut = cut.slice(0, space);
  return cut.trimEnd() + '…';
}
