import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replaceDocument, upsertCollection } from '../../../src/knowledge/knowledge-repository.ts';
import type { Database } from '../../../src/store/database.ts';
import { openKnowledgeDatabase } from '../../support/knowledge-fixtures.ts';

/**
 * Full-text search reads the tsv of every candidate it ranks, so the tsv stays in the row
 * and the embedding leaves it first (migration 0011): a chunk of 120 distinct words (840
 * characters, a tsv of about 1.3 kB) with a 256-dimension embedding is over the 2 kB row limit.
 */
let db: Database;
let accountId: string;
let close: () => Promise<void>;

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'do', 'fi', 'gu', 'he', 'ji', 'ba'];
/** 120 distinct pseudo-words of 6 letters. */
const content = Array.from({ length: 120 }, (_, index) => `${SYLLABLES[index % 16]}${SYLLABLES[(index >> 4) % 16]}${SYLLABLES[(index * 7) % 16]}`).join(' ');
const embedding = `[${Array.from({ length: 256 }, (_, index) => ((index % 17) / 17 - 0.5).toFixed(6)).join(',')}]`;

beforeAll(async () => {
  ({ db, accountId, close } = await openKnowledgeDatabase());
  await upsertCollection(db, accountId, 'stored', 'test/embedder-256');
  await replaceDocument(db, {
    accountId,
    collection: 'stored',
    path: 'chunk.md',
    title: 'chunk',
    sourceHash: 'chunk',
    embeddingModel: 'test/embedder-256',
    chunks: [{ chunkIndex: 0, content, contentHash: 'chunk', embedding, dims: 256 }],
  });
});
afterAll(async () => {
  await close();
});

describe('a stored knowledge chunk', () => {
  it('keeps its full-text vector in the row and sends its embedding to the TOAST table', async () => {
    const storage = await db.query<{ attstorage: string }>(`SELECT attstorage FROM pg_attribute WHERE attrelid = 'knowledge_chunks'::regclass AND attname = 'tsv'`);
    expect(storage.rows[0]?.attstorage).toBe('m');
    // pg_column_toast_chunk_id (PostgreSQL 17+, so PGlite) says where each value of this row is.
    const where = await db.query<{ available: boolean }>(`SELECT to_regproc('pg_column_toast_chunk_id') IS NOT NULL AS available`);
    if (!where.rows[0]?.available) return;
    const row = await db.query<{ tsv_out: boolean; embedding_out: boolean; tsv_bytes: number }>(
      `SELECT pg_column_toast_chunk_id(tsv) IS NOT NULL AS tsv_out, pg_column_toast_chunk_id(embedding) IS NOT NULL AS embedding_out,
              pg_column_size(tsv) AS tsv_bytes
       FROM knowledge_chunks WHERE account_id = $1 AND collection = 'stored'`,
      [accountId],
    );
    expect(row.rows).toEqual([{ tsv_out: false, embedding_out: true, tsv_bytes: expect.any(Number) }]);
    expect(row.rows[0]?.tsv_bytes).toBeGreaterThan(1000);
  });
});
