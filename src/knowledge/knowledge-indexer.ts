import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Database } from '../store/database.ts';
import { embedChecked, type Embedder, toVectorLiteral } from './embedder.ts';
import {
  type ChunkInput,
  deleteCollection,
  deleteDocuments,
  findStoredEmbeddings,
  listDocuments,
  listIndexedCollections,
  replaceDocument,
  type StoredEmbedding,
  upsertCollection,
} from './knowledge-repository.ts';
import { refreshLexemeStatistics, STATISTICS_REFRESH_CHUNKS } from './lexeme-frequencies.ts';
import { type DocumentExtractor, sharedDocumentExtractor } from './document-extractor.ts';
import { listCollections, loadCollection, type PreparedDocument } from './load-documents.ts';
import type { KnowledgeChunk, SplitOptions } from './split-documents.ts';

export type IndexProgress = {
  collection: string;
  documentsDone: number;
  documentsTotal: number;
  /** Chunks sent to the embedder so far in this collection. */
  chunksEmbedded: number;
  /** Chunks whose stored embedding (or, without an embedder, stored row) was kept. */
  chunksReused: number;
};

export type IndexOptions = {
  db: Database;
  accountId: string;
  /** The knowledge root, holding one folder per collection. */
  rootDir: string;
  /** Without one, chunks are stored for full-text search only. */
  embedder?: Embedder;
  /** Only these collections; default: every folder, and collections whose folder is gone are dropped. */
  collections?: string[];
  /** Texts per embedding call. */
  batchSize?: number;
  split?: SplitOptions;
  /** Where files are extracted and split (default: the process's shared extractor). */
  extractor?: DocumentExtractor;
  /** A file that could not be extracted: it is skipped, and what is stored for it stays. */
  onDocumentError?: (path: string, error: Error) => void;
  onProgress?: (progress: IndexProgress) => void;
};

export type CollectionReport = IndexProgress & { documentsRemoved: number; chunksTotal: number };
export type IndexReport = { collections: CollectionReport[]; collectionsRemoved: string[] };

type PlannedChunk = KnowledgeChunk & { contentHash: string; embedText: string };
type PlannedDocument = { document: PreparedDocument; chunks: PlannedChunk[]; sourceHash: string; unchanged?: boolean };

/**
 * Indexes `rootDir/<collection>/` for one account, incrementally. Each chunk's hash
 * covers the exact text that is embedded and the model id, so a stored embedding is
 * reused wherever the same hash appears again (unchanged parts of an edited document,
 * a renamed file) and a model change re-embeds everything. A document whose chunk
 * hashes all match is not touched at all. Missing embeddings are gathered across
 * documents into full batches; each document is written in its own transaction as
 * soon as its vectors are there, so an interrupted run keeps what it finished.
 */
export async function indexKnowledge(options: IndexOptions): Promise<IndexReport> {
  const { db, accountId, rootDir } = options;
  // A mistyped JUNCTION_KNOWLEDGE_DIR must fail, not look like "every collection was deleted".
  const root = await stat(rootDir).catch(() => undefined);
  if (!root?.isDirectory()) throw new Error(`knowledge folder not found: ${rootDir}`);
  const onDisk = await listCollections(rootDir);
  const uploaded = new Set((await listIndexedCollections(db, accountId)).filter((stored) => stored.source === 'console').map((stored) => stored.name));
  const names = (options.collections ?? onDisk).filter((name) => !uploaded.has(name));
  const collectionsRemoved: string[] = [];
  if (!options.collections) {
    for (const stored of await listIndexedCollections(db, accountId)) {
      // Console collections hold uploads, not folders: the folder sync leaves them alone.
      if (stored.source === 'console' || onDisk.includes(stored.name)) continue;
      await deleteCollection(db, accountId, stored.name);
      collectionsRemoved.push(stored.name);
    }
  }
  const collections: CollectionReport[] = [];
  let chunksWritten = 0;
  for (const name of names) {
    const indexed = await indexCollection(options, name);
    collections.push(indexed.report);
    chunksWritten += indexed.chunksWritten;
  }
  if (chunksWritten >= STATISTICS_REFRESH_CHUNKS) await refreshLexemeStatistics(db);
  return { collections, collectionsRemoved };
}

/** One collection's report, and the chunks it wrote (the statistics refresh goes by them). */
async function indexCollection(options: IndexOptions, collection: string): Promise<{ report: CollectionReport; chunksWritten: number }> {
  const { db, accountId, embedder } = options;
  const batchSize = Math.max(1, options.batchSize ?? 64);
  const { documents, failed } = await loadCollection(options.rootDir, collection, {
    extractor: options.extractor ?? sharedDocumentExtractor(),
    ...(options.split && { split: options.split }),
    ...(options.onDocumentError && { onDocumentError: options.onDocumentError }),
  });
  const stored = new Map((await listDocuments(db, accountId, collection)).map((document) => [document.path, document]));
  // A file that failed this time keeps its earlier index rather than vanishing from search.
  for (const path of failed) stored.delete(path);
  await upsertCollection(db, accountId, collection, embedder?.modelId ?? null);

  const progress: IndexProgress = { collection, documentsDone: 0, documentsTotal: documents.length, chunksEmbedded: 0, chunksReused: 0 };
  let chunksTotal = 0;
  let chunksWritten = 0;
  const report = () => options.onProgress?.({ ...progress });
  report();

  // Vectors by chunk hash: stored ones looked up per document, new ones from the embedder.
  const vectors = new Map<string, StoredEmbedding>();
  const waiting: PlannedDocument[] = [];
  const pending = new Map<string, string>(); // hash → text still to embed

  const writeReady = async () => {
    while (waiting.length > 0) {
      const next = waiting[0];
      if (!next) return;
      if (!next.unchanged && embedder && next.chunks.some((chunk) => !vectors.has(chunk.contentHash))) return;
      waiting.shift();
      if (!next.unchanged) {
        await writeDocument(options, next, vectors);
        chunksWritten += next.chunks.length;
      }
      progress.documentsDone += 1;
      report();
    }
  };
  const embedPending = async (all: boolean) => {
    while (embedder && (pending.size >= batchSize || (all && pending.size > 0))) {
      const batch = [...pending].slice(0, batchSize);
      const embedded = await embedChecked(
        embedder,
        batch.map(([, text]) => text),
        'document',
      );
      batch.forEach(([hash], position) => {
        const vector = embedded[position] ?? [];
        vectors.set(hash, { embedding: toVectorLiteral(vector), dims: vector.length });
        pending.delete(hash);
      });
      progress.chunksEmbedded += batch.length;
      await writeReady();
    }
  };

  for (const document of documents) {
    const plan = planDocument(document, embedder?.modelId);
    chunksTotal += plan.chunks.length;
    const previous = stored.get(document.path);
    stored.delete(document.path);
    if (previous && previous.sourceHash === plan.sourceHash) {
      progress.chunksReused += plan.chunks.length;
      // Queued rather than counted at once so documentsDone only ever covers a prefix of the documents.
      waiting.push({ ...plan, unchanged: true });
      await writeReady();
      continue;
    }
    if (embedder) {
      const missing = plan.chunks.map((chunk) => chunk.contentHash).filter((hash) => !vectors.has(hash) && !pending.has(hash));
      for (const [hash, vector] of await findStoredEmbeddings(db, options.accountId, missing)) vectors.set(hash, vector);
      for (const chunk of plan.chunks) {
        // A hash already stored, or already queued by another chunk, is embedded at most once.
        if (vectors.has(chunk.contentHash) || pending.has(chunk.contentHash)) progress.chunksReused += 1;
        else pending.set(chunk.contentHash, chunk.embedText);
      }
    }
    waiting.push(plan);
    await writeReady();
    await embedPending(false);
  }
  await embedPending(true);
  await writeReady();

  const removed = [...stored.values()];
  await deleteDocuments(
    db,
    accountId,
    removed.map((document) => document.id),
  );
  chunksWritten += removed.reduce((sum, document) => sum + document.chunkCount, 0);
  return { report: { ...progress, documentsRemoved: removed.length, chunksTotal }, chunksWritten };
}

/**
 * Indexes one uploaded document into a console collection: split, embed what no stored
 * chunk already has (same hash, same model), write it in one transaction (replacing
 * an earlier upload with the same path). Returns its chunk count.
 */
export async function indexDocument(options: Pick<IndexOptions, 'db' | 'accountId' | 'embedder'>, document: PreparedDocument): Promise<number> {
  const plan = planDocument(document, options.embedder?.modelId);
  const vectors = new Map<string, StoredEmbedding>();
  if (options.embedder) {
    const hashes = [...new Set(plan.chunks.map((chunk) => chunk.contentHash))];
    for (const [hash, vector] of await findStoredEmbeddings(options.db, options.accountId, hashes)) vectors.set(hash, vector);
    const missing = plan.chunks.filter((chunk, index) => !vectors.has(chunk.contentHash) && plan.chunks.findIndex((other) => other.contentHash === chunk.contentHash) === index);
    for (let start = 0; start < missing.length; start += 64) {
      const batch = missing.slice(start, start + 64);
      const embedded = await embedChecked(
        options.embedder,
        batch.map((chunk) => chunk.embedText),
        'document',
      );
      batch.forEach((chunk, position) => {
        const vector = embedded[position] ?? [];
        vectors.set(chunk.contentHash, { embedding: toVectorLiteral(vector), dims: vector.length });
      });
    }
  }
  await writeDocument(options, plan, vectors);
  return plan.chunks.length;
}

/** Hashes a prepared document's chunks. */
export function planDocument(document: PreparedDocument, modelId: string | undefined): PlannedDocument {
  const chunks = document.chunks.map((chunk) => {
    const embedText = embeddingText(document.title, chunk);
    return { ...chunk, embedText, contentHash: chunkHash(embedText, modelId) };
  });
  const sourceHash = sha256([modelId ?? '', document.title, ...chunks.map((chunk) => chunk.contentHash)].join('\n'));
  return { document, chunks, sourceHash };
}

/**
 * The text that is embedded: the chunk with its document title and heading path in
 * front, so a chunk that says "within 30 days" still lands near questions about
 * returns (contextual chunk headers).
 */
export function embeddingText(title: string, chunk: Pick<KnowledgeChunk, 'heading' | 'content'>): string {
  const header = [title, chunk.heading].filter(Boolean).join(' > ');
  return `${header}\n\n${chunk.content}`;
}

/** Whitespace differences (re-wrapped paragraphs, CRLF) do not change meaning, so not the hash. */
export function chunkHash(text: string, modelId: string | undefined): string {
  const normalized = text.normalize('NFC').replace(/\s+/g, ' ').trim();
  return sha256(`${modelId ?? 'full-text-only'}\n${normalized}`);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function writeDocument(options: Pick<IndexOptions, 'db' | 'accountId' | 'embedder'>, plan: PlannedDocument, vectors: Map<string, StoredEmbedding>): Promise<void> {
  const { document } = plan;
  const chunks: ChunkInput[] = plan.chunks.map((chunk) => {
    const vector = options.embedder ? vectors.get(chunk.contentHash) : undefined;
    return {
      chunkIndex: chunk.chunkIndex,
      ...(chunk.heading ? { heading: chunk.heading } : {}),
      content: chunk.content,
      contentHash: chunk.contentHash,
      embedding: vector?.embedding ?? null,
      dims: vector?.dims ?? null,
    };
  });
  await options.db.transaction((tx) =>
    replaceDocument(tx, {
      accountId: options.accountId,
      collection: document.collection,
      path: document.path,
      title: document.title,
      sourceHash: plan.sourceHash,
      embeddingModel: options.embedder?.modelId ?? null,
      chunks,
    }),
  );
}
