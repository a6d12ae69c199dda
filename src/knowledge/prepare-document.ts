import { basename } from 'node:path';
import { extractDocumentText } from './document-text.ts';
import { ExtractionFailure } from './extraction-failure.ts';
import type { ExtractionLimits } from './extraction-limits.ts';
import type { DocumentFormat } from './load-documents.ts';
import { type KnowledgeChunk, splitDocument, type SplitOptions } from './split-documents.ts';

/** A file as the indexer needs it: its title and its chunks, with no text left to parse. */
export type DocumentChunks = { format: DocumentFormat; title: string; chunks: KnowledgeChunk[] };

/** Extracts and splits one file (in the extraction thread: both cost time in proportion to the text). */
export async function prepareDocument(path: string, content: Uint8Array, limits: ExtractionLimits, split?: SplitOptions): Promise<DocumentChunks> {
  const { format, title, text } = await extractDocumentText(path, content, limits);
  const chunks = await splitDocument({ format, title, text }, split);
  if (chunks.length > limits.maxChunks) {
    throw new ExtractionFailure(
      'too_many_chunks',
      `'${basename(path)}' splits into ${chunks.length.toLocaleString('en-US')} chunks, more than the ${limits.maxChunks.toLocaleString('en-US')} one document may have.`,
    );
  }
  return { format, title, chunks };
}
