import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type KnowledgeSearchResult, searchKnowledge } from '../../../src/knowledge/hybrid-search.ts';
import { indexKnowledge } from '../../../src/knowledge/knowledge-indexer.ts';
import type { Database } from '../../../src/store/database.ts';
import { EXAMPLE_KNOWLEDGE_DIR, openKnowledgeDatabase } from '../../support/knowledge-fixtures.ts';
import { createLexicalEmbedder } from '../../support/lexical-embedder.ts';
import { engineName } from '../../support/test-database.ts';

/**
 * Hit rate @3 over labelled questions: a question is a hit when one of the top three
 * chunks comes from the document that answers it. The floors are set a little under
 * what was measured so that a regression fails the test. The embedder here is
 * lexical (hashed words and trigrams), so "hybrid" measures the pipeline and fusion,
 * not the quality a real embedding model would add.
 */
const LabelledSchema = z.object({
  description: z.string(),
  questions: z.array(z.object({ question: z.string(), source: z.string() })).min(1),
});

const TOP = 3;
let db: Database;
let accountId: string;
let close: () => Promise<void>;
const embedder = createLexicalEmbedder();
const collections = ['handbook', 'product-docs'];

beforeAll(async () => {
  ({ db, accountId, close } = await openKnowledgeDatabase());
  await indexKnowledge({ db, accountId, rootDir: EXAMPLE_KNOWLEDGE_DIR, embedder });
});
afterAll(async () => close());

async function hitRate(search: (question: string) => Promise<KnowledgeSearchResult>) {
  const { questions } = LabelledSchema.parse(JSON.parse(await readFile(new URL('../../fixtures/knowledge/labelled-questions.json', import.meta.url), 'utf8')));
  const misses: string[] = [];
  for (const { question, source } of questions) {
    const { hits } = await search(question);
    if (!hits.slice(0, TOP).some((hit) => hit.source === source)) {
      misses.push(
        `${question} → expected ${source}, got ${hits
          .slice(0, TOP)
          .map((hit) => hit.path)
          .join(', ')}`,
      );
    }
  }
  return { rate: (questions.length - misses.length) / questions.length, total: questions.length, misses };
}

describe(`retrieval quality on the example knowledge (${engineName()})`, () => {
  it('reaches the measured hit rate @3 with full text only and with hybrid search', async () => {
    const text = await hitRate((query) => searchKnowledge({ db, accountId, collections, query, limit: TOP }));
    const vector = await hitRate(async (query) => {
      // Vector-only ranking for the record: the hybrid path with the text list dropped.
      const result = await searchKnowledge({ db, accountId, collections, query, embedder, limit: 30, candidates: 30 });
      const hits = result.hits.filter((hit) => hit.vectorRank !== undefined).sort((a, b) => (a.vectorRank ?? 0) - (b.vectorRank ?? 0));
      return { ...result, hits };
    });
    const hybrid = await hitRate(async (query) => {
      const result = await searchKnowledge({ db, accountId, collections, query, embedder, limit: TOP });
      expect(result.mode).toBe('hybrid');
      return result;
    });
    console.log(
      `knowledge hit rate @${TOP} over ${text.total} questions: full-text ${text.rate.toFixed(2)}, ` + `vector (lexical test embedder) ${vector.rate.toFixed(2)}, hybrid ${hybrid.rate.toFixed(2)}`,
    );
    for (const [name, result] of Object.entries({ text, vector, hybrid })) {
      for (const miss of result.misses) console.log(`  ${name} miss: ${miss}`);
    }
    expect(text.rate).toBeGreaterThanOrEqual(0.9);
    expect(hybrid.rate).toBeGreaterThanOrEqual(0.9);
  });
});
