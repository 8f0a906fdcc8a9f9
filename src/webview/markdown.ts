// Markdown for agent-written text: markdown-it with raw HTML off (so <script> and onerror= arrive
// as text), links limited to http(s) and mailto, then an allow-list pass over the produced DOM as
// a second wall. Nothing here may turn agent text into live markup.

import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });
md.validateLink = (url: string) => /^(https?:|mailto:|#)/i.test(url.trim());

const ALLOWED_TAGS = new Set([
  'P',
  'BR',
  'HR',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'STRONG',
  'EM',
  'S',
  'DEL',
  'CODE',
  'PRE',
  'BLOCKQUOTE',
  'UL',
  'OL',
  'LI',
  'A',
  'TABLE',
  'THEAD',
  'TBODY',
  'TR',
  'TH',
  'TD',
  'SPAN',
]);
const ALLOWED_ATTRS: Record<string, Set<string>> = { A: new Set(['href', 'title']), OL: new Set(['start']), CODE: new Set(['class']) };

function clean(node: Element): void {
  for (const child of Array.from(node.children)) {
    if (!ALLOWED_TAGS.has(child.tagName)) {
      child.replaceWith(document.createTextNode(child.textContent ?? ''));
      continue;
    }
    const allowed = ALLOWED_ATTRS[child.tagName] ?? new Set<string>();
    for (const attr of Array.from(child.attributes)) if (!allowed.has(attr.name)) child.removeAttribute(attr.name);
    if (child.tagName === 'A') {
      const href = child.getAttribute('href') ?? '';
      if (!/^(https?:|mailto:|#)/i.test(href)) child.removeAttribute('href');
      child.setAttribute('rel', 'noopener noreferrer');
    }
    clean(child);
  }
}

/** Renders untrusted Markdown into a fragment that holds no script, handler or remote content. */
export function renderMarkdown(text: string): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = md.render(text);
  const root = document.createElement('div');
  root.append(template.content);
  clean(root);
  const fragment = document.createDocumentFragment();
  fragment.append(...Array.from(root.childNodes));
  return fragment;
}
