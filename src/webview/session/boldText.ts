// The `**bold**` an agent puts in a step's message or reasoning (Codex titles its reasoning
// summaries so), as segments the page renders with textContent: bold in a <strong>, the rest as
// text. Pure, no DOM: nothing here can turn agent text into markup.

export interface TextSegment {
  text: string;
  bold: boolean;
}

/**
 * Splits `text` at `**` pairs on one line. A pair with nothing (or only spaces) inside, or a
 * `**` without its partner, stays as written; the markers of a pair are dropped.
 */
export function boldSegments(text: string): TextSegment[] {
  const out: TextSegment[] = [];
  const push = (t: string, bold: boolean): void => {
    if (t === '') return;
    const last = out[out.length - 1];
    if (last && last.bold === bold) last.text += t;
    else out.push({ text: t, bold });
  };
  // As in Markdown: the bold text neither starts nor ends with a space (or a star).
  const pair = /\*\*(?=[^\s*])([^\n]*?[^\s*])\*\*|\*\*([^\s*])\*\*/g;
  let at = 0;
  for (let m = pair.exec(text); m; m = pair.exec(text)) {
    push(text.slice(at, m.index), false);
    push(m[1] ?? m[2]!, true);
    at = m.index + m[0].length;
  }
  push(text.slice(at), false);
  return out;
}
