import { basename, extname } from 'node:path';
import { ExtractionFailure } from './extraction-failure.ts';
import type { ExtractionLimits } from './extraction-limits.ts';
import { type DocumentFormat, formatOf } from './load-documents.ts';
import { nestsDeeperThan } from './html-nesting.ts';
import { firstMarkdownHeading } from './markdown-heading.ts';
import { textTooLarge } from './pdf-text.ts';

export type DocumentText = { format: DocumentFormat; title: string; text: string };

/**
 * Converts one file's bytes to text; `path` decides the format. Markdown stays Markdown
 * and HTML becomes Markdown-like text (headings as `#` lines), so the splitter keeps
 * heading paths for both. Runs in the extraction thread: PDF and HTML parsing cost
 * CPU and memory that the server's thread must not spend.
 */
export async function extractDocumentText(path: string, content: Uint8Array, limits: ExtractionLimits): Promise<DocumentText> {
  const format = formatOf(path);
  const fileName = basename(path);
  const fallbackTitle = titleFromFileName(path);
  const extracted = await extractByFormat(format, fileName, content, limits);
  const text = withoutNul(extracted.text);
  if (text.length > limits.maxTextChars) throw textTooLarge(fileName, limits);
  const title = withoutNul(extracted.title ?? firstMarkdownHeading(text) ?? fallbackTitle);
  return { format: extracted.format, title, text };
}

async function extractByFormat(format: DocumentFormat | undefined, fileName: string, content: Uint8Array, limits: ExtractionLimits): Promise<{ format: DocumentFormat; text: string; title?: string }> {
  switch (format) {
    case 'markdown': {
      const { body, title } = stripFrontMatter(utf8(content));
      return { format, text: body, ...(title && { title }) };
    }
    case 'text':
      return { format, text: utf8(content) };
    case 'html': {
      // Loaded on demand: the HTML parser is a few MB that a server without HTML documents never needs.
      const { htmlTitle, htmlToText } = await import('./html-document.ts');
      const html = utf8(content);
      const text = nestsDeeperThan(html, limits.maxHtmlDepth) ? undefined : htmlToText(html, limits.maxHtmlDepth);
      if (text === undefined) throw new ExtractionFailure('too_deep', `'${fileName}' nests its HTML elements more than ${limits.maxHtmlDepth} levels deep.`);
      const title = htmlTitle(html);
      return { format, text, ...(title && { title }) };
    }
    case 'pdf': {
      const { pdfText } = await import('./pdf-text.ts');
      return { format, ...(await pdfText(fileName, content, limits)) };
    }
    default:
      throw new ExtractionFailure('unsupported', `'${fileName}' is not a .md, .markdown, .txt, .html, .htm or .pdf file.`);
  }
}

const utf8 = (content: Uint8Array) => Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('utf8');

/**
 * PostgreSQL text cannot hold U+0000, and in a text document it carries no meaning, so
 * it is dropped (as search indexers do) rather than refusing the file.
 */
const withoutNul = (text: string) => (text.includes('\u0000') ? text.replaceAll('\u0000', '') : text);

function titleFromFileName(path: string): string {
  const name = basename(path, extname(path)).replace(/[-_]+/g, ' ').trim();
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** `title: "…"` of front matter, read line by line (a lazy regular expression here backtracked on long lines). */
function frontMatterTitle(frontMatter: string): string | undefined {
  const line = frontMatter.split(/\r?\n/).find((candidate) => candidate.startsWith('title:'));
  const value = line?.slice('title:'.length).trim().replace(/^["']/, '').replace(/["']$/, '').trim();
  return value === '' ? undefined : value;
}

/** YAML front matter is metadata, not content; only its `title` is kept. */
function stripFrontMatter(markdown: string): { body: string; title?: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(markdown);
  if (!match) return { body: markdown };
  const title = frontMatterTitle(match[1] ?? '');
  return { body: markdown.slice(match[0].length), ...(title ? { title } : {}) };
}
