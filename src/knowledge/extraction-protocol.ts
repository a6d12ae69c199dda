/**
 * The messages between DocumentExtractor (the server's thread) and extraction-worker.ts.
 * Values cross by structured clone; the file's bytes are transferred, not copied.
 */
import type { ExtractionFailureKind } from './extraction-failure.ts';
import type { ExtractionLimits } from './extraction-limits.ts';
import type { DocumentChunks } from './prepare-document.ts';
import type { SplitOptions } from './split-documents.ts';

export type ExtractionRequest = { id: number; path: string; content: Uint8Array; limits: ExtractionLimits; split?: SplitOptions };

export type ExtractionReply =
  /** Sent once the thread has loaded its modules: a job's wall time counts from then. */
  { id: 0; ready: true } | { id: number; ok: true; document: DocumentChunks } | { id: number; ok: false; kind: ExtractionFailureKind; message: string };
