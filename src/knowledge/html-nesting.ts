const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/** Elements whose end tag may be left out: a second `<li>` closes the first rather than nesting in it. */
const OPTIONAL_END = new Set(['li', 'p', 'td', 'th', 'tr', 'option', 'optgroup', 'dt', 'dd', 'thead', 'tbody', 'tfoot', 'colgroup', 'rt', 'rp']);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'noscript']);

/**
 * Whether an HTML document's elements nest deeper than `maxDepth`, found in one pass
 * over its tags before any parser sees it: the HTML parser and html-to-text both take
 * time that grows faster than the depth (100,000 nested `<div>`s took 41 s). An
 * approximation of the HTML tree builder that never undercounts real nesting by much.
 */
export function nestsDeeperThan(html: string, maxDepth: number): boolean {
  const open: string[] = [];
  let at = 0;
  for (;;) {
    const start = html.indexOf('<', at);
    if (start === -1) return false;
    if (html.startsWith('<!--', start)) {
      const end = html.indexOf('-->', start + 4);
      if (end === -1) return false;
      at = end + 3;
      continue;
    }
    const end = html.indexOf('>', start + 1);
    if (end === -1) return false;
    at = end + 1;
    const closing = html[start + 1] === '/';
    const name = /^[a-zA-Z][a-zA-Z0-9:-]*/.exec(html.slice(start + (closing ? 2 : 1), Math.min(end, start + 40)))?.[0]?.toLowerCase();
    if (!name) continue;
    if (closing) {
      const index = open.lastIndexOf(name);
      if (index !== -1) open.length = index;
      continue;
    }
    if (VOID.has(name) || html[end - 1] === '/') continue;
    if (RAW_TEXT.has(name)) {
      const close = endTagIndex(html, name, at);
      if (close === -1) return false;
      at = close;
      continue;
    }
    if (OPTIONAL_END.has(name) && open[open.length - 1] === name) continue;
    open.push(name);
    if (open.length > maxDepth) return true;
  }
}

/** Where `</name` next starts, in any case (`name` is letters, digits, `:` and `-` only). */
function endTagIndex(html: string, name: string, from: number): number {
  const pattern = new RegExp(`</${name}`, 'gi');
  pattern.lastIndex = from;
  return pattern.exec(html)?.index ?? -1;
}
