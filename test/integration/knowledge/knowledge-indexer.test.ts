import { appendFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IndexProgress, indexKnowledge } from '../../../src/knowledge/knowledge-indexer.ts';
import { countChunks } from '../../../src/knowledge/knowledge-repository.ts';
import type { Database } from '../../../src/store/database.ts';
import { copyExampleKnowledge, openKnowledgeDatabase } from '../../support/knowledge-fixtures.ts';
import { createLexicalEmbedder } from '../../support/lexical-embedder.ts';
import { engineName } from '../../support/test-database.ts';

let db: Database;
let accountId: string;
let close: () => Promise<void>;
let knowledge: { dir: string; remove(): Promise<void> };
const embedder = createLexicalEmbedder();

beforeAll(async () => {
  ({ db, accountId, close } = await openKnowledgeDatabase());
  knowledge = await copyExampleKnowledge();
});
afterAll(async () => {
  await close();
  await knowledge.remove();
});

const chunkIds = async (path: string) =>
  (await db.query<{ id: number }>('SELECT id FROM knowledge_chunks WHERE account_id = $1 AND path = $2 ORDER BY id', [accountId, path])).rows.map((row) => row.id);

describe(`indexing the example knowledge on ${engineName()}`, () => {
  it('indexes every document of both collections, embedding each chunk once in bounded batches', async () => {
    const batches: number[] = [];
    const progress: IndexProgress[] = [];
    const counting = {
      ...embedder,
      embed: (texts: string[], kind: 'document' | 'query') => {
        batches.push(texts.length);
        return embedder.embed(texts, kind);
      },
    };
    const report = await indexKnowledge({ db, accountId, rootDir: knowledge.dir, embedder: counting, batchSize: 16, onProgress: (p) => progress.push(p) });

    expect(report.collections.map((collection) => collection.collection)).toEqual(['handbook', 'product-docs']);
    const handbook = report.collections[0];
    expect(handbook).toMatchObject({ documentsTotal: 8, documentsDone: 8, documentsRemoved: 0 });
    expect(report.collections[1]).toMatchObject({ documentsTotal: 4, documentsDone: 4 });
    const stored = await countChunks(db, accountId);
    expect(stored.documents).toBe(12);
    expect(stored.chunks).toBe(report.collections.reduce((sum, collection) => sum + collection.chunksTotal, 0));
    expect(stored.embedded).toBe(stored.chunks);
    expect(stored.chunks).toBeGreaterThan(24);
    expect(Math.max(...batches)).toBeLessThanOrEqual(16);
    expect(batches.reduce((sum, size) => sum + size, 0)).toBe(report.collections.reduce((sum, c) => sum + c.chunksEmbedded, 0));

    // Progress is monotonic per collection and ends complete.
    const handbookProgress = progress.filter((p) => p.collection === 'handbook');
    expect(handbookProgress[0]).toMatchObject({ documentsDone: 0, documentsTotal: 8 });
    expect(handbookProgress.at(-1)).toMatchObject({ documentsDone: 8, chunksEmbedded: handbook?.chunksEmbedded });
    const done = handbookProgress.map((p) => p.documentsDone);
    expect(done).toEqual([...done].sort((a, b) => a - b));
  });

  it('re-embeds nothing when nothing changed and leaves the rows alone', async () => {
    const before = await chunkIds('shipping.md');
    embedder.reset();
    const report = await indexKnowledge({ db, accountId, rootDir: knowledge.dir, embedder });
    expect(embedder.counts.document).toBe(0);
    for (const collection of report.collections) {
      expect(collection.chunksEmbedded).toBe(0);
      expect(collection.chunksReused).toBe(collection.chunksTotal);
    }
    expect(await chunkIds('shipping.md')).toEqual(before);
  });

  it('re-embeds only the changed chunks of an edited document', async () => {
    const otherBefore = await chunkIds('returns-and-refunds.md');
    const shippingChunks = (await chunkIds('shipping.md')).length;
    await appendFile(join(knowledge.dir, 'handbook', 'shipping.md'), '\n## Gift wrapping\n\nGift wrapping costs $3 per item and includes a printed message card.\n');
    embedder.reset();
    const report = await indexKnowledge({ db, accountId, rootDir: knowledge.dir, embedder });
    const handbook = report.collections.find((collection) => collection.collection === 'handbook');
    expect(embedder.counts.document).toBe(1);
    expect(handbook?.chunksEmbedded).toBe(1);
    expect(handbook?.chunksReused).toBe((handbook?.chunksTotal ?? 0) - 1);
    expect((await chunkIds('shipping.md')).length).toBe(shippingChunks + 1);
    expect(await chunkIds('returns-and-refunds.md')).toEqual(otherBefore);
    const added = await db.query<{ heading: string; embedded: boolean }>(
      `SELECT heading, embedding IS NOT NULL AS embedded FROM knowledge_chunks WHERE account_id = $1 AND content LIKE 'Gift wrapping costs%'`,
      [accountId],
    );
    expect(added.rows).toEqual([{ heading: 'Gift wrapping', embedded: true }]);
  });

  it('deletes the chunks of a removed document and of a removed collection', async () => {
    await rm(join(knowledge.dir, 'handbook', 'warranty.html'));
    const report = await indexKnowledge({ db, accountId, rootDir: knowledge.dir, embedder });
    expect(report.collections[0]?.documentsRemoved).toBe(1);
    expect(await chunkIds('warranty.html')).toEqual([]);
    expect((await countChunks(db, accountId, 'handbook')).documents).toBe(7);

    await rm(join(knowledge.dir, 'product-docs'), { recursive: true });
    const second = await indexKnowledge({ db, accountId, rootDir: knowledge.dir, embedder });
    expect(second.collectionsRemoved).toEqual(['product-docs']);
    expect((await countChunks(db, accountId, 'product-docs')).chunks).toBe(0);
  });

  it('refuses a missing knowledge folder instead of dropping every collection', async () => {
    await expect(indexKnowledge({ db, accountId, rootDir: join(knowledge.dir, 'nope'), embedder })).rejects.toThrow(/knowledge folder not found/);
    expect((await countChunks(db, accountId, 'handbook')).documents).toBe(7);
  });

  it('re-embeds everything for another model, and stores text only without an embedder', async () => {
    const other = createLexicalEmbedder({ dimensions: 384, modelId: 'test/other' });
    const report = await indexKnowledge({ db, accountId, rootDir: knowledge.dir, embedder: other, collections: ['handbook'] });
    expect(other.counts.document).toBe(report.collections[0]?.chunksTotal);
    const dims = await db.query<{ dims: number; model: string }>('SELECT DISTINCT dims, embedding_model AS model FROM knowledge_chunks WHERE account_id = $1', [accountId]);
    expect(dims.rows).toEqual([{ dims: 384, model: 'test/other' }]);

    await indexKnowledge({ db, accountId, rootDir: knowledge.dir });
    const stored = await countChunks(db, accountId);
    expect(stored.chunks).toBeGreaterThan(0);
    expect(stored.embedded).toBe(0);
  });
});
