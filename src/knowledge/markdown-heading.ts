export type AtxHeading = { level: number; text: string };

/**
 * An ATX heading line (`## Refunds ##`): its level and text, else undefined. Read by
 * hand in one pass: the regular expression it replaces backtracked cubically on a long
 * run of spaces (2 kB of them took 17 s).
 */
export function atxHeading(line: string, maxIndent = 3): AtxHeading | undefined {
  let start = 0;
  while (start < maxIndent && (line[start] === ' ' || line[start] === '\t')) start += 1;
  let level = 0;
  while (line[start + level] === '#') level += 1;
  if (level < 1 || level > 6) return undefined;
  const rest = line.slice(start + level);
  if (!/^\s/.test(rest)) return undefined;
  let text = rest.trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === '#') end -= 1;
  text = text.slice(0, end).trimEnd();
  return text === '' ? undefined : { level, text };
}

/** The text of the first heading of a Markdown document (one without indentation), if any. */
export function firstMarkdownHeading(markdown: string): string | undefined {
  let from = 0;
  while (from < markdown.length) {
    const at = markdown.indexOf('#', from);
    if (at === -1) return undefined;
    const lineStart = markdown.lastIndexOf('\n', at) + 1;
    const lineEnd = markdown.indexOf('\n', at);
    const line = markdown.slice(lineStart, lineEnd === -1 ? undefined : lineEnd).replace(/\r$/, '');
    const heading = lineStart === at ? atxHeading(line, 0) : undefined;
    if (heading) return heading.text;
    if (lineEnd === -1) return undefined;
    from = lineEnd + 1;
  }
  return undefined;
}
