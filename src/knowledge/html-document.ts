import { convert, type FormatCallback } from 'html-to-text';

/** HTML knowledge documents as Markdown-like text: headings become `#` lines, so chunks keep their heading path. */

export function htmlTitle(html: string): string | undefined {
  const raw = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
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

export function htmlToText(html: string): string {
  return convert(html, {
    wordwrap: false,
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
  }).trim();
}
