import { z } from 'zod';

export const KNOWLEDGE_UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;
/** Documents one console collection may hold (each upload is extracted, split and indexed). */
export const KNOWLEDGE_DOCUMENTS_PER_COLLECTION = 1_000;
/** Uploads one account may have in progress at once, so its files cannot occupy the extraction pool. */
export const KNOWLEDGE_UPLOADS_PER_ACCOUNT = 2;
export const KNOWLEDGE_UPLOAD_FORMATS = ['.md', '.markdown', '.txt', '.html', '.htm', '.pdf'] as const;

export const CollectionNameSchema = z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/i, 'letters, digits, ".", "_" and "-" (at most 64), starting with a letter or digit');
export const CreateCollectionSchema = z.strictObject({ name: CollectionNameSchema });

export const KnowledgeDocumentSchema = z.object({ id: z.number(), path: z.string(), chunks: z.number(), indexed_at: z.string() });
export const KnowledgeCollectionSchema = z.object({
  name: z.string(),
  /** `folder`: the knowledge folder's files (read-only here); `console`: uploads. */
  source: z.enum(['folder', 'console']),
  embedding_model: z.string().nullable(),
  documents: z.array(KnowledgeDocumentSchema),
});
export const KnowledgeListSchema = z.object({ data: z.array(KnowledgeCollectionSchema), upload_limit_bytes: z.number() });

export const KnowledgeSearchQuerySchema = z.object({ q: z.string().min(1).max(2_000), collection: z.union([z.string(), z.array(z.string())]).optional() });
export const KnowledgeHitSchema = z.object({ collection: z.string(), path: z.string(), heading: z.string().nullable(), content: z.string(), score: z.number() });
export const KnowledgeSearchResultSchema = z.object({ mode: z.string(), hits: z.array(KnowledgeHitSchema) });
export const UploadedDocumentSchema = z.object({ data: z.object({ collection: z.string(), path: z.string(), chunks: z.number() }) });
