import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import type { DocumentExtractor } from './document-extractor.ts';
import type { DocumentChunks } from './prepare-document.ts';
import type { SplitOptions } from './split-documents.ts';

/** A knowledge document as text: Markdown, plain text, or HTML and PDF converted to text. */
export type KnowledgeDocument = {
  collection: string;
  /** Path inside the collection folder, always with `/` separators. */
  path: string;
  title: string;
  text: string;
  format: DocumentFormat;
};

/** A document ready to index: where it belongs, its title and its chunks (see prepare-document.ts). */
export type PreparedDocument = DocumentChunks & { collection: string; path: string };

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

export type LoadCollectionOptions = {
  extractor: DocumentExtractor;
  split?: SplitOptions;
  /** A file that could not be extracted; it is left out and the others load. */
  onDocumentError?: (path: string, error: Error) => void;
};

export type LoadedCollection = {
  documents: PreparedDocument[];
  /** Paths that failed to extract: what is stored for them is kept, not deleted. */
  failed: string[];
};

/**
 * Every supported file under `rootDir/collection/` (recursively; dot-files skipped),
 * sorted by path, extracted and split through the same extractor (and limits) as
 * uploads. The folder is the operator's, so a file that fails is reported and skipped
 * rather than failing the collection.
 */
export async function loadCollection(rootDir: string, collection: string, options: LoadCollectionOptions): Promise<LoadedCollection> {
  if (!COLLECTION_NAME.test(collection)) throw new Error(`invalid knowledge collection name: ${collection}`);
  const folder = join(rootDir, collection);
  const files = (await listFiles(folder)).filter((file) => formatOf(file) !== undefined).sort();
  const documents: PreparedDocument[] = [];
  const failed: string[] = [];
  for (const file of files) {
    const path = relative(folder, file).split(sep).join('/');
    try {
      const prepared = await options.extractor.extract({ path, content: await readFile(file), ...(options.split && { split: options.split }) });
      // An empty file (or a scanned PDF without a text layer) has nothing to index.
      if (prepared.chunks.length > 0) documents.push({ ...prepared, collection, path });
    } catch (error) {
      failed.push(path);
      options.onDocumentError?.(`${collection}/${path}`, error instanceof Error ? error : new Error(String(error)));
    }
  }
  return { documents, failed };
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
