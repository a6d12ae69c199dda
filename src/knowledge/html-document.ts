import { convert, type FormatCallback } from 'html-to-text';

/** HTML knowledge documents as Markdown-like text: headings become `#` lines, so chunks keep their heading path. */

export function htmlTitle(html: string): string | undefined {
  // Found by plain searches, not one lazy regular expression: that rescanned the rest of the file for each unclosed `<title`.
  const open = /<title/i.exec(html)?.index;
  const contentStart = open === undefined ? -1 : html.indexOf('>', open) + 1;
  const closing = /<\/title>/gi;
  closing.lastIndex = Math.max(contentStart, 0);
  const close = contentStart <= 0 ? undefined : closing.exec(html)?.index;
  const raw = close === undefined ? undefined : html.slice(contentStart, close);
  const title = raw ? convert(raw, { wordwrap: false }).trim() : '';
  return title === '' ? undefined : title;
}

/** Emits `<h2>` as `## …` so HTML headings survive into the heading path of chunks. */
const markdownHeading: FormatCallback = (element, walk, builder) => {
  const level = Number(/^h([1-6])$/i.exec(element.name ?? '')?.[1] ?? 1);
  builder.openBlock({ leadingLineBreaks: 2 });
  builder.addLiteral(`${'#'.repeat(level)} `);
  walk(element.children, builder);
  builder.closeBlock({ trailingLineBreaks: 2 });
};

/** Put where html-to-text stops descending: its presence in the text means the document nests too deep. */
const TOO_DEEP = '\u0000junction-nesting-limit\u0000';

/**
 * The text of an HTML document; `undefined` when its elements nest deeper than
 * `maxDepth` (html-to-text walks the tree recursively, so depth is bounded before the
 * stack is, and silently cut text would be worse than a refusal).
 */
export function htmlToText(html: string, maxDepth = 512): string | undefined {
  const text = convert(html, {
    wordwrap: false,
    limits: { maxDepth, ellipsis: TOO_DEEP },
    formatters: { markdownHeading },
    selectors: [
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, format: 'markdownHeading' })),
      // Link targets and images are noise for retrieval; the link text stays.
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'nav', format: 'skip' },
      { selector: 'script', format: 'skip' },
      { selector: 'style', format: 'skip' },
    ],
  });
  return text.includes(TOO_DEEP) ? undefined : text.trim();
}
