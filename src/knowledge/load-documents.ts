import { readdir, readFile } from 'node:fs/promises';
import { basename, extname, join, relative, sep } from 'node:path';

/**
 * A knowledge document as text. Markdown stays Markdown and HTML is converted to
 * Markdown-like text (headings as `#` lines), so the splitter can keep heading paths
 * for both.
 */
export type KnowledgeDocument = {
  collection: string;
  /** Path inside the collection folder, always with `/` separators. */
  path: string;
  title: string;
  text: string;
  format: DocumentFormat;
};

export type DocumentFormat = 'markdown' | 'text' | 'html' | 'pdf';

const FORMATS: Record<string, DocumentFormat> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.txt': 'text',
  '.html': 'html',
  '.htm': 'html',
  '.pdf': 'pdf',
};

/** A collection is a sub-folder of the knowledge root; names end up in SQL rows and agent configs. */
export const COLLECTION_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/i;

export function formatOf(path: string): DocumentFormat | undefined {
  return FORMATS[extname(path).toLowerCase()];
}

/** Collection folders under `rootDir`, sorted; a missing root means no knowledge. */
export async function listCollections(rootDir: string): Promise<string[]> {
  const entries = await readdir(rootDir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries
    .filter((entry) => entry.isDirectory() && COLLECTION_NAME.test(entry.name))
    .map((entry) => entry.name)
    .sort();
}

/** Every supported file under `rootDir/collection/` (recursively; dot-files skipped), sorted by path. */
export async function loadCollection(rootDir: string, collection: string): Promise<KnowledgeDocument[]> {
  if (!COLLECTION_NAME.test(collection)) throw new Error(`invalid knowledge collection name: ${collection}`);
  const folder = join(rootDir, collection);
  const files = (await listFiles(folder)).filter((file) => formatOf(file) !== undefined).sort();
  const documents: KnowledgeDocument[] = [];
  for (const file of files) {
    const path = relative(folder, file).split(sep).join('/');
    const document = await loadDocument(collection, path, await readFile(file));
    // An empty file (or a scanned PDF without a text layer) has nothing to index.
    if (document.text.trim() !== '') documents.push(document);
  }
  return documents;
}

async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const full = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(full)));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}

/** Converts one file's bytes to text; `path` decides the format. */
export async function loadDocument(collection: string, path: string, content: Uint8Array): Promise<KnowledgeDocument> {
  const format = formatOf(path);
  const fallbackTitle = titleFromFileName(path);
  switch (format) {
    case 'markdown': {
      const { body, title } = stripFrontMatter(Buffer.from(content).toString('utf8'));
      return { collection, path, format, text: body, title: title ?? firstMarkdownHeading(body) ?? fallbackTitle };
    }
    case 'text':
      return { collection, path, format, text: Buffer.from(content).toString('utf8'), title: fallbackTitle };
    case 'html': {
      // Loaded on demand: the HTML parser is a few MB that a server without HTML documents never needs.
      const { htmlTitle, htmlToText } = await import('./html-document.ts');
      const html = Buffer.from(content).toString('utf8');
      const text = htmlToText(html);
      return { collection, path, format, text, title: htmlTitle(html) ?? firstMarkdownHeading(text) ?? fallbackTitle };
    }
    case 'pdf': {
      const { text, title } = await pdfToText(content);
      return { collection, path, format, text, title: title ?? fallbackTitle };
    }
    default:
      throw new Error(`unsupported knowledge file type: ${path}`);
  }
}

function titleFromFileName(path: string): string {
  const name = basename(path, extname(path)).replace(/[-_]+/g, ' ').trim();
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** YAML front matter is metadata, not content; only its `title` is kept. */
function stripFrontMatter(markdown: string): { body: string; title?: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(markdown);
  if (!match) return { body: markdown };
  const title = /^title:\s*["']?(.+?)["']?\s*$/m.exec(match[1] ?? '')?.[1];
  return { body: markdown.slice(match[0].length), ...(title ? { title } : {}) };
}

function firstMarkdownHeading(text: string): string | undefined {
  return /^#{1,6}\s+(.+?)\s*#*\s*$/m.exec(text)?.[1];
}

async function pdfToText(content: Uint8Array): Promise<{ text: string; title?: string }> {
  // Loaded on demand: pdf.js is large and most deployments have no PDFs.
  const { extractText, getDocumentProxy, getMeta } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(content));
  const { text } = await extractText(pdf, { mergePages: true });
  const { info } = await getMeta(pdf);
  const title: unknown = info.Title;
  return { text, ...(typeof title === 'string' && title.trim() !== '' ? { title: title.trim() } : {}) };
}
