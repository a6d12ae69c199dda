import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchByText } from '../../../src/knowledge/full-text-search.ts';
import { replaceDocument, upsertCollection } from '../../../src/knowledge/knowledge-repository.ts';
import { refreshLexemeStatistics } from '../../../src/knowledge/lexeme-frequencies.ts';
import type { Database } from '../../../src/store/database.ts';
import { openKnowledgeDatabase } from '../../support/knowledge-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

let db: Database;
let accountId: string;
let close: () => Promise<void>;

/** One document per chunk text, in the collection `tiers`. */
async function addChunks(texts: Record<string, string>, collection = 'tiers'): Promise<void> {
  for (const [path, content] of Object.entries(texts)) {
    await replaceDocument(db, {
      accountId,
      collection,
      path,
      title: path,
      sourceHash: path,
      embeddingModel: null,
      chunks: [{ chunkIndex: 0, content, contentHash: path, embedding: null, dims: null }],
    });
  }
}

/** One document of 1,200 one-line chunks ("<line> <n>."), stored before anything else in its collection. */
async function addCrowdedDocument(collection: string, path: string, line: string): Promise<void> {
  await upsertCollection(db, accountId, collection, null);
  await replaceDocument(db, {
    accountId,
    collection,
    path,
    title: 'numbers',
    sourceHash: path,
    embeddingModel: null,
    chunks: Array.from({ length: 1200 }, (_, index) => ({ chunkIndex: index, content: `${line} ${index}.`, contentHash: `${path}-${index}`, embedding: null, dims: null })),
  });
}

/** One document of `count` chunks that match none of the questions: makes a scope large enough for the tiers. */
async function addFiller(collection: string, count: number): Promise<void> {
  await replaceDocument(db, {
    accountId,
    collection,
    path: 'filler.md',
    title: 'filler',
    sourceHash: 'filler',
    embeddingModel: null,
    chunks: Array.from({ length: count }, (_, index) => ({ chunkIndex: index, content: `Lorem ipsum ${index}.`, contentHash: `filler-${index}`, embedding: null, dims: null })),
  });
}

beforeAll(async () => {
  ({ db, accountId, close } = await openKnowledgeDatabase());
  await upsertCollection(db, accountId, 'tiers', null);
  await addFiller('tiers', 1000);
  await addChunks({
    'all-1.md': 'The restocking fee applies to opened devices.',
    'all-2.md': 'Opened devices carry a restocking fee of ten percent.',
    'two-1.md': 'A restocking fee is charged on some returns.',
    // Says "fee" many times: ranked high by a single word, never above chunks with more words in a tier that is enough.
    'one-1.md': 'Fee fee fee. The fee, the fee and the fee again.',
    'one-2.md': 'Devices ship in recycled boxes.',
    'none.md': 'Shipping to Canada takes five days.',
  });
});
afterAll(async () => close());

const paths = async (question: string, limit: number) => (await searchByText(db, { accountId, collections: ['tiers'], limit, question })).map((match) => match.path);

describe(`full-text search in minimum-should-match tiers (${engineName()})`, () => {
  it('answers from the chunks holding every word when there are enough of them', async () => {
    expect((await paths('What is the restocking fee for opened devices?', 2)).sort()).toEqual(['all-1.md', 'all-2.md']);
  });

  it('widens to chunks holding two of the words, then to any word, when a tier is short', async () => {
    expect((await paths('What is the restocking fee for opened devices?', 3)).sort()).toEqual(['all-1.md', 'all-2.md', 'two-1.md']);
    const wide = await paths('What is the restocking fee for opened devices?', 10);
    expect(wide.sort()).toEqual(['all-1.md', 'all-2.md', 'one-1.md', 'one-2.md', 'two-1.md']);
  });

  it('ranks by the share of question words, best first, with scores', async () => {
    const matches = await searchByText(db, { accountId, collections: ['tiers'], limit: 10, question: 'restocking fee opened devices' });
    expect(matches.map((match) => match.score)).toEqual([...matches.map((match) => match.score)].sort((a, b) => b - a));
    expect(['all-1.md', 'all-2.md']).toContain(matches[0]?.path);
  });

  it('takes any text: operators, quotes, backslashes and stop words only', async () => {
    expect(await paths(`fee -- or not? "it's" a\\b 'x' & | ! <-> :*`, 10)).toContain('one-1.md');
    expect(await paths('what is the', 10)).toEqual([]);
    expect(await paths('', 10)).toEqual([]);
  });

  it('keeps the chunks with more words when single-word matches are more than the last tier ranks', async () => {
    await addCrowdedDocument('crowded', 'numbers.md', 'Fee number');
    await addChunks({ 'late.md': 'The restocking fee is ten percent.' }, 'crowded');
    const matches = await searchByText(db, { accountId, collections: ['crowded'], limit: 5, question: 'restocking fee' });
    expect(matches).toHaveLength(5);
    expect(matches[0]?.path).toBe('late.md');
  });

  it("samples a crowded tier from its rarest word pairs, so a common pair's matches cannot crowd out a rare one", async () => {
    // Stored first, so a sample in storage order would hold only these.
    await addCrowdedDocument('common-pairs', 'policies.md', 'Fee policy number');
    await addChunks({ 'restocking.md': 'Restocking fee: the restocking fee is ten percent.' }, 'common-pairs');
    // What an index run of this size does (PGlite has no autovacuum): the statistics learn that "fee" and "policy" are common.
    await refreshLexemeStatistics(db);
    const matches = await searchByText(db, { accountId, collections: ['common-pairs'], limit: 5, question: 'restocking fee policy' });
    expect(matches).toHaveLength(5);
    expect(matches[0]?.path).toBe('restocking.md');
  });

  it('ranks every match in a small scope (plain OR ranking)', async () => {
    await upsertCollection(db, accountId, 'small', null);
    await addChunks({ 'a.md': 'The restocking fee applies to opened devices.', 'b.md': 'Fee fee fee, the fee again.', 'c.md': 'Nothing to see.' }, 'small');
    const matches = await searchByText(db, { accountId, collections: ['small'], limit: 10, question: 'restocking fee opened devices' });
    expect(matches.map((match) => match.path)).toEqual(['a.md', 'b.md']);
    // Larger than the tiers' sample: the same question goes through the tiers and still finds its chunk.
    await addFiller('small', 1000);
    expect((await searchByText(db, { accountId, collections: ['small'], limit: 1, question: 'restocking fee opened devices' }))[0]?.path).toBe('a.md');
  });

  it('stays within the account and collections asked for', async () => {
    expect(await searchByText(db, { accountId, collections: ['other'], limit: 10, question: 'restocking fee' })).toEqual([]);
  });
});
