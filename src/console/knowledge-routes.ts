import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { JunctionError } from '../core/errors.ts';
import { clientSignal } from '../http/client-signal.ts';
import { parseInput } from '../http/parse-body.ts';
import { systemKeyFor } from '../keys/system-key.ts';
import type { Embedder } from '../knowledge/embedder.ts';
import { searchKnowledge } from '../knowledge/hybrid-search.ts';
import { indexDocument } from '../knowledge/knowledge-indexer.ts';
import { collectionOccupancy, deleteCollection, deleteDocuments, listIndexedCollections, upsertCollection } from '../knowledge/knowledge-repository.ts';
import type { DocumentExtractor } from '../knowledge/document-extractor.ts';
import { extractionError, isExtractionFailure } from '../knowledge/extraction-failure.ts';
import { formatOf, listCollections } from '../knowledge/load-documents.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import type { Database } from '../store/database.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import {
  CollectionNameSchema,
  CreateCollectionSchema,
  KNOWLEDGE_DOCUMENTS_PER_COLLECTION,
  KNOWLEDGE_UPLOAD_LIMIT_BYTES,
  KNOWLEDGE_UPLOADS_PER_ACCOUNT,
  KnowledgeSearchQuerySchema,
} from './contract/knowledge.ts';

export type ConsoleKnowledgeDeps = {
  db: Database;
  now: () => Date;
  knowledgeDir: string;
  /** The embedder indexing and search use, run as the account (billed to its credit); none: full text only. */
  embedder(context: CallContext): Embedder | undefined;
  /** Resolves once the account's folder collections are indexed (indexing them on first need). */
  knowledgeReady(accountId: string): Promise<void>;
  /** Where uploads are extracted and split, off the server's thread. */
  extractor: DocumentExtractor;
};

const CollectionParamsSchema = z.object({ name: CollectionNameSchema });
const DocumentParamsSchema = z.object({ name: CollectionNameSchema, id: z.coerce.number().int().positive() });

/**
 * Knowledge in the console: the account's collections (folder ones read-only), new
 * collections filled by uploads (md, txt, html, pdf up to 10 MB each), a document
 * deleted with its chunks, and a search box that shows what an agent would retrieve.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a route table; each route is short and reads best beside the others
export async function consoleKnowledgeRoutes(app: FastifyInstance, deps: ConsoleKnowledgeDeps): Promise<void> {
  await app.register(fastifyMultipart, { limits: { fileSize: KNOWLEDGE_UPLOAD_LIMIT_BYTES, files: 1, fields: 0 } });
  const uploadsInProgress = new Map<string, number>();
  const reader = requireConsoleUser(deps.db, deps.now);
  const editor = requireConsoleUser(deps.db, deps.now, 'admin');
  const contextFor = (accountId: string, requestId: string, signal: AbortSignal): CallContext => ({ key: systemKeyFor(accountId, deps.now()), requestId, endpoint: 'knowledge.console', signal });

  const consoleCollection = async (accountId: string, name: string) => {
    const found = (await listIndexedCollections(deps.db, accountId)).find((collection) => collection.name === name);
    if (!found) throw new JunctionError('not_found', `No knowledge collection '${name}' in this account.`);
    if (found.source !== 'console') throw new JunctionError('conflict', `'${name}' is a folder collection: change its files in the knowledge folder.`);
    return found;
  };

  app.get('/knowledge', { preHandler: reader }, async (request) => {
    const accountId = consoleCaller(request).accountId;
    await deps.knowledgeReady(accountId);
    const collections = await listIndexedCollections(deps.db, accountId);
    const documents = await deps.db.query<{ id: number; collection: string; path: string; chunk_count: number; indexed_at: Date }>(
      'SELECT id, collection, path, chunk_count, indexed_at FROM knowledge_documents WHERE account_id = $1 ORDER BY collection, path',
      [accountId],
    );
    return {
      upload_limit_bytes: KNOWLEDGE_UPLOAD_LIMIT_BYTES,
      data: collections.map((collection) => ({
        name: collection.name,
        source: collection.source,
        embedding_model: collection.embeddingModel,
        documents: documents.rows
          .filter((row) => row.collection === collection.name)
          .map((row) => ({ id: Number(row.id), path: row.path, chunks: row.chunk_count, indexed_at: row.indexed_at.toISOString() })),
      })),
    };
  });

  app.post('/knowledge/collections', { preHandler: editor }, async (request, reply) => {
    const accountId = consoleCaller(request).accountId;
    const { name } = parseInput(CreateCollectionSchema, request.body);
    const taken = (await listIndexedCollections(deps.db, accountId)).some((collection) => collection.name === name) || (await listCollections(deps.knowledgeDir)).includes(name);
    if (taken) throw new JunctionError('conflict', `A knowledge collection '${name}' already exists.`, { param: 'name' });
    await upsertCollection(deps.db, accountId, name, deps.embedder(contextFor(accountId, request.id, new AbortController().signal))?.modelId ?? null, 'console');
    return reply.status(201).send({ data: { name, source: 'console', embedding_model: null, documents: [] } });
  });

  app.delete('/knowledge/collections/:name', { preHandler: editor }, async (request) => {
    const accountId = consoleCaller(request).accountId;
    const { name } = parseInput(CollectionParamsSchema, request.params, 'path');
    await consoleCollection(accountId, name);
    await deleteCollection(deps.db, accountId, name);
    return { deleted: true };
  });

  app.post('/knowledge/collections/:name/documents', { preHandler: editor }, async (request, reply) => {
    const accountId = consoleCaller(request).accountId;
    const { name } = parseInput(CollectionParamsSchema, request.params, 'path');
    await consoleCollection(accountId, name);
    if (!request.isMultipart()) throw new JunctionError('unsupported_media_type', 'Upload the document as multipart/form-data with one file.');
    const inProgress = uploadsInProgress.get(accountId) ?? 0;
    if (inProgress >= KNOWLEDGE_UPLOADS_PER_ACCOUNT) {
      throw new JunctionError('rate_limit_exceeded', `This account already has ${inProgress} uploads in progress; send the next when one has finished.`, { headers: { 'retry-after': '5' } });
    }
    uploadsInProgress.set(accountId, inProgress + 1);
    try {
      return await reply.status(201).send({ data: await uploadDocument(accountId, name, request, clientSignal(reply).signal) });
    } finally {
      const left = (uploadsInProgress.get(accountId) ?? 1) - 1;
      if (left > 0) uploadsInProgress.set(accountId, left);
      else uploadsInProgress.delete(accountId);
    }
  });

  /** Reads, extracts (in the extraction pool, as the account) and indexes one uploaded file. */
  const uploadDocument = async (accountId: string, name: string, request: FastifyRequest, signal: AbortSignal) => {
    const file = await request.file();
    if (!file) throw new JunctionError('invalid_request', 'No file in the upload.', { param: 'file' });
    const path = file.filename.replaceAll('\\', '/').split('/').pop()?.trim() ?? '';
    if (!path || !formatOf(path)) throw new JunctionError('invalid_request', 'Upload a .md, .txt, .html or .pdf file.', { param: 'file' });
    const occupancy = await collectionOccupancy(deps.db, accountId, name, path);
    if (occupancy.documents >= KNOWLEDGE_DOCUMENTS_PER_COLLECTION && !occupancy.hasPath) {
      throw new JunctionError(
        'conflict',
        `'${name}' already holds ${KNOWLEDGE_DOCUMENTS_PER_COLLECTION.toLocaleString('en-US')} documents, the most one collection may; delete some or use another collection.`,
        { param: 'file' },
      );
    }
    const content = await file.toBuffer().catch((error: { code?: string }) => {
      if (error.code === 'FST_REQ_FILE_TOO_LARGE') throw new JunctionError('request_too_large', `A document may be at most ${KNOWLEDGE_UPLOAD_LIMIT_BYTES / 1024 / 1024} MB.`, { param: 'file' });
      throw error;
    });
    const prepared = await deps.extractor.extract({ path, content, owner: accountId, signal }).catch((error: unknown) => {
      throw isExtractionFailure(error) ? extractionError(error) : error;
    });
    if (prepared.chunks.length === 0) throw new JunctionError('invalid_request', `'${path}' holds no text to index (a scanned PDF without a text layer?).`, { param: 'file' });
    const embedder = deps.embedder(contextFor(accountId, request.id, signal));
    const chunks = await indexDocument({ db: deps.db, accountId, ...(embedder && { embedder }) }, { ...prepared, collection: name, path });
    return { collection: name, path, chunks };
  };

  app.delete('/knowledge/collections/:name/documents/:id', { preHandler: editor }, async (request) => {
    const accountId = consoleCaller(request).accountId;
    const { name, id } = parseInput(DocumentParamsSchema, request.params, 'path');
    await consoleCollection(accountId, name);
    const found = await deps.db.query('SELECT 1 FROM knowledge_documents WHERE account_id = $1 AND collection = $2 AND id = $3', [accountId, name, id]);
    if (found.rows.length === 0) throw new JunctionError('not_found', `No document ${id} in '${name}'.`);
    await deleteDocuments(deps.db, accountId, [id]);
    return { deleted: true };
  });

  app.get('/knowledge/search', { preHandler: reader }, async (request) => {
    const accountId = consoleCaller(request).accountId;
    const query = parseInput(KnowledgeSearchQuerySchema, request.query, 'query string');
    await deps.knowledgeReady(accountId);
    const all = (await listIndexedCollections(deps.db, accountId)).map((collection) => collection.name);
    const wanted = query.collection === undefined ? all : [query.collection].flat().filter((name) => all.includes(name));
    const embedder = deps.embedder(contextFor(accountId, request.id, new AbortController().signal));
    const result = await searchKnowledge({ db: deps.db, accountId, collections: wanted, query: query.q, ...(embedder && { embedder }), limit: 10 });
    return { mode: result.mode, hits: result.hits.map((hit) => ({ collection: hit.collection, path: hit.path, heading: hit.heading, content: hit.content, score: hit.score })) };
  });
}
