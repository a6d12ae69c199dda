import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/account-repository.ts';
import { RRF_K, searchKnowledge } from '../../../src/knowledge/hybrid-search.ts';
import { indexKnowledge } from '../../../src/knowledge/knowledge-indexer.ts';
import { SMALL_SCOPE_CHUNKS, searchByVector, vectorSearchSql } from '../../../src/knowledge/knowledge-repository.ts';
import { toVectorLiteral } from '../../../src/knowledge/embedder.ts';
import type { Database, Queryable } from '../../../src/store/database.ts';
import { EXAMPLE_KNOWLEDGE_DIR, openKnowledgeDatabase } from '../../support/knowledge-fixtures.ts';
import { createLexicalEmbedder } from '../../support/lexical-embedder.ts';
import { engineName } from '../../support/test-database.ts';

let db: Database;
let accountId: string;
let textOnlyAccountId: string;
let close: () => Promise<void>;
const embedder = createLexicalEmbedder();
const collections = ['handbook', 'product-docs'];

beforeAll(async () => {
  ({ db, accountId, close } = await openKnowledgeDatabase());
  await indexKnowledge({ db, accountId, rootDir: EXAMPLE_KNOWLEDGE_DIR, embedder });
  textOnlyAccountId = (await createAccount(db, 'text-only')).id;
  await indexKnowledge({ db, accountId: textOnlyAccountId, rootDir: EXAMPLE_KNOWLEDGE_DIR });
});
afterAll(async () => close());

describe(`hybrid search on ${engineName()}`, () => {
  it('finds the answer on full text alone when the account has no embeddings and no embedder is given', async () => {
    for (const id of [accountId, textOnlyAccountId]) {
      const result = await searchKnowledge({ db, accountId: id, collections, query: 'Is there a restocking fee on opened devices?' });
      expect(result.mode).toBe('text');
      expect(result.fallbackReason).toBeUndefined();
      expect(result.hits[0]).toMatchObject({ collection: 'handbook', path: 'returns-and-refunds.md', title: 'Returns and refunds' });
      expect(result.hits[0]?.content).toContain('15% restocking');
    }
  });

  it('fuses vector and full-text ranks: scores are the RRF sums, in descending order', async () => {
    const result = await searchKnowledge({ db, accountId, collections, query: 'hub light ring solid red no internet', embedder, limit: 10 });
    expect(result.mode).toBe('hybrid');
    expect(result.hits).toHaveLength(10);
    const rrf = (rank: number | undefined) => (rank === undefined ? 0 : 1 / (RRF_K + rank));
    for (const hit of result.hits) expect(hit.score).toBeCloseTo(rrf(hit.vectorRank) + rrf(hit.textRank), 12);
    const scores = result.hits.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // Found by both retrievers beats found by one at any rank.
    const top = result.hits[0];
    expect(top?.vectorRank).toBeDefined();
    expect(top?.textRank).toBeDefined();
    expect(result.hits.slice(0, 3).map((hit) => `${hit.path}#${hit.heading}`)).toContain('troubleshooting.md#The hub shows as offline');
  });

  it('sends the query vector as bytes that the engine reads as the same values as its text', async () => {
    const [vector = []] = await embedder.embed(['how do I reset the hub to factory settings'], 'query');
    const matches = await searchByVector(db, { accountId, collections, limit: 8, embeddingModel: embedder.modelId, vector });
    expect(matches).toHaveLength(8);
    const fromText = await db.query<{ id: number; score: number }>(`SELECT id, embedding::vector(256) <=> $1::vector(256) AS score FROM knowledge_chunks WHERE id = ANY($2::bigint[])`, [
      toVectorLiteral(vector),
      matches.map((match) => match.id),
    ]);
    const textScores = new Map(fromText.rows.map((row) => [Number(row.id), Number(row.score)]));
    for (const match of matches) expect(match.score).toBeCloseTo(textScores.get(match.id) ?? Number.NaN, 6);
    expect(matches.map((match) => match.score)).toEqual(matches.map((match) => match.score).sort((a, b) => a - b));
  });

  describe('the nearest chunks of a scope', () => {
    type PlanNode = { 'Node Type': string; 'Parent Relationship'?: string; 'Relation Name'?: string; 'Index Name'?: string; 'Actual Loops': number; Plans?: PlanNode[] };
    const ran = (node: PlanNode) => node['Actual Loops'] > 0;
    const readsChunks = (node: PlanNode) => node['Relation Name'] === 'knowledge_chunks' || node['Index Name']?.startsWith('knowledge_chunks') === true;
    const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];
    const query = 'student discount on a hub bought for school';
    let largeAccountId: string;

    beforeAll(async () => {
      // Another account with the same knowledge (the rows the scope's filter must not pay for),
      // and one whose documents claim more than SMALL_SCOPE_CHUNKS chunks between them.
      await indexKnowledge({ db, accountId: (await createAccount(db, 'neighbour')).id, rootDir: EXAMPLE_KNOWLEDGE_DIR, embedder });
      largeAccountId = (await createAccount(db, 'large')).id;
      await indexKnowledge({ db, accountId: largeAccountId, rootDir: EXAMPLE_KNOWLEDGE_DIR, embedder });
      await db.query(`INSERT INTO knowledge_documents (account_id, collection, path, title, source_hash, chunk_count) VALUES ($1, 'handbook', 'bulk.md', 'Bulk', 'bulk', $2)`, [
        largeAccountId,
        SMALL_SCOPE_CHUNKS,
      ]);
    });

    /**
     * The executed plan of the search statement in its generic form (the one a prepared
     * statement may settle on, planned without the scope's values), as the nodes of its two
     * branches: the scope compared whole, and the index walk.
     */
    async function genericPlan(account: string): Promise<{ whole: PlanNode[]; walk: PlanNode[]; all: PlanNode[] }> {
      const [vector = []] = await embedder.embed([query], 'query');
      const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
      return db.transaction(async (tx: Queryable) => {
        await tx.query(`PREPARE nearest_probe AS ${vectorSearchSql(256, 8)}`);
        try {
          await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
          const explained = await tx.query<Record<string, unknown>>(
            `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE nearest_probe(${quote(toVectorLiteral(vector))}, ${quote(account)}, ${quote(`{${collections.join(',')}}`)}, ${quote(embedder.modelId)})`,
          );
          const cell = Object.values(explained.rows[0] ?? {})[0];
          const [root] = (typeof cell === 'string' ? JSON.parse(cell) : cell) as Array<{ Plan: PlanNode }>;
          if (!root) throw new Error('EXPLAIN returned no plan');
          const [whole, walk] = (root.Plan.Plans ?? []).filter((node) => node['Parent Relationship'] === 'Member');
          if (!whole || !walk) throw new Error('the statement is not two branches');
          return { whole: nodes(whole), walk: nodes(walk), all: nodes(root.Plan) };
        } finally {
          await tx.query('DEALLOCATE nearest_probe');
        }
      });
    }

    it('compares every vector of a small scope, read through its documents even in a generic plan', async () => {
      const plan = await genericPlan(accountId);
      // The scope's documents, then each one's chunks by its key: no walk of the graph over every
      // account's chunks, and no sequential scan of them.
      expect(plan.whole.some((node) => ran(node) && node['Index Name'] === 'knowledge_chunks_document_id_chunk_index_key')).toBe(true);
      expect(plan.walk.filter(readsChunks).some(ran)).toBe(false);
      expect(plan.all.filter((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'knowledge_chunks')).toEqual([]);

      // So the order is exact, whatever the graph would offer first.
      const [vector = []] = await embedder.embed([query], 'query');
      const nearest = await searchByVector(db, { accountId, collections, limit: 8, embeddingModel: embedder.modelId, vector });
      const exact = await db.query<{ id: number }>(
        'SELECT id FROM knowledge_chunks WHERE account_id = $2 AND collection = ANY($3::text[]) ORDER BY embedding::vector(256) <=> $1::vector(256), id LIMIT 8',
        [toVectorLiteral(vector), accountId, collections],
      );
      expect(nearest.map((match) => match.id)).toEqual(exact.rows.map((row) => Number(row.id)));
    });

    it('walks the HNSW index for a scope larger than SMALL_SCOPE_CHUNKS', async () => {
      const plan = await genericPlan(largeAccountId);
      expect(plan.whole.filter(readsChunks).some(ran)).toBe(false);
      expect(plan.walk.filter(readsChunks).some(ran)).toBe(true);
    });
  });

  it('searches only the requested collections', async () => {
    const result = await searchKnowledge({ db, accountId, collections: ['product-docs'], query: 'rate limit 429 API key', embedder });
    expect(result.hits.length).toBeGreaterThan(0);
    expect(result.hits.every((hit) => hit.collection === 'product-docs')).toBe(true);
    expect(result.hits[0]?.path).toBe('cloud-api-quickstart.html');
  });

  it('falls back to full text when the embeddings come from another model or the embedder fails', async () => {
    const other = createLexicalEmbedder({ modelId: 'test/another-model' });
    const mismatch = await searchKnowledge({ db, accountId, collections, query: 'student discount', embedder: other });
    expect(mismatch.mode).toBe('text');
    expect(mismatch.fallbackReason).toMatch(/indexed with test\/lexical-256, not test\/another-model/);
    expect(other.counts.query).toBe(0);
    expect(mismatch.hits[0]?.path).toBe('pricing-plans.html');

    const failing = { ...embedder, embed: async () => Promise.reject(new Error('upstream 503')) };
    const failed = await searchKnowledge({ db, accountId, collections, query: 'student discount', embedder: failing });
    expect(failed).toMatchObject({ mode: 'text', fallbackReason: 'embedding the query failed: upstream 503' });
    expect(failed.hits[0]?.path).toBe('pricing-plans.html');
  });

  it('never returns another account’s chunks', async () => {
    const root = await mkdtemp(join(tmpdir(), 'junction-knowledge-'));
    await mkdir(join(root, 'handbook'));
    await writeFile(join(root, 'handbook', 'secret.md'), '# Internal\n\nThe vault combination is zebra-4471.');
    const other = (await createAccount(db, 'other')).id;
    await indexKnowledge({ db, accountId: other, rootDir: root, embedder });
    await rm(root, { recursive: true, force: true });

    const query = 'vault combination zebra';
    const own = await searchKnowledge({ db, accountId: other, collections: ['handbook'], query, embedder });
    expect(own.hits[0]?.path).toBe('secret.md');
    expect(own.hits.every((hit) => hit.path === 'secret.md')).toBe(true);
    const mine = await searchKnowledge({ db, accountId, collections: ['handbook'], query, embedder, limit: 50 });
    expect(mine.hits.length).toBeGreaterThan(0);
    expect(mine.hits.some((hit) => hit.path === 'secret.md')).toBe(false);
    const nobody = await searchKnowledge({ db, accountId: (await createAccount(db, 'empty')).id, collections: ['handbook'], query, embedder });
    expect(nobody).toMatchObject({ hits: [], mode: 'text' });
  });

  it('uses the partial HNSW index for the embedding size and the GIN index for full text', async () => {
    const plans = await db.transaction(async (tx) => {
      // The tables are tiny, so sequential scans are switched off to ask whether the index applies at all,
      // and the account filter is left out: on a tiny table the (account, collection) index plus a sort
      // is rightly cheaper. bench/knowledge-search.ts checks the full query's plan at 100k chunks.
      await tx.query('SET LOCAL enable_seqscan = off');
      const vector = `[${new Array(256)
        .fill(0)
        .map((_, i) => (i === 0 ? 1 : 0))
        .join(',')}]`;
      const vectorPlan = await tx.query<Record<string, string>>(
        `EXPLAIN SELECT id FROM knowledge_chunks WHERE dims = 256 AND embedding_model = $2
         ORDER BY embedding::vector(256) <=> $1::vector(256) LIMIT 10`,
        [vector, embedder.modelId],
      );
      const textPlan = await tx.query<Record<string, string>>(`EXPLAIN SELECT id FROM knowledge_chunks, websearch_to_tsquery('english', $1) AS query WHERE tsv @@ query`, ['refund']);
      return [vectorPlan, textPlan].map((plan) => plan.rows.map((row) => Object.values(row).join('')).join('\n'));
    });
    expect(plans[0]).toMatch(/Index Scan using knowledge_chunks_hnsw_256/);
    expect(plans[1]).toMatch(/knowledge_chunks_tsv/);
  });
});
