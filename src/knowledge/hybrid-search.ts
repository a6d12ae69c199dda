import type { Database } from '../store/database.ts';
import { embedChecked, type Embedder } from './embedder.ts';
import { searchByText } from './full-text-search.ts';
import { type ChunkMatch, listIndexedCollections, searchByVector } from './knowledge-repository.ts';

export type KnowledgeHit = {
  chunkId: number;
  collection: string;
  /** Source file inside the collection folder. */
  path: string;
  /** `collection/path`, the citation shown to the model (and the tools' KnowledgeHit.source). */
  source: string;
  title: string | null;
  heading: string | null;
  content: string;
  /** Reciprocal-rank-fusion score: higher is better; comparable only within one search. */
  score: number;
  /** 1-based positions in the vector and full-text candidate lists, when the chunk was in them. */
  vectorRank?: number;
  textRank?: number;
};

export type KnowledgeSearchMode = 'hybrid' | 'text';

export type KnowledgeSearchResult = {
  hits: KnowledgeHit[];
  mode: KnowledgeSearchMode;
  /** Why a search ran on full text only although an embedder was given. */
  fallbackReason?: string;
};

export type KnowledgeSearchOptions = {
  db: Database;
  accountId: string;
  collections: readonly string[];
  query: string;
  embedder?: Embedder;
  /** Hits returned (default 5). */
  limit?: number;
  /** Candidates taken from each retriever before fusion (default 30). */
  candidates?: number;
};

/** The constant from Cormack et al. (2009); it damps the weight of the very top ranks. */
export const RRF_K = 60;

/**
 * Hybrid retrieval: the nearest chunks by embedding and the best full-text matches,
 * fused by reciprocal rank. Ranks, not scores, are fused because cosine distances and
 * ts_rank values live on unrelated scales. Full text alone serves when there is no
 * embedder, when the collections were indexed without one or with another model
 * (their vectors are not comparable with this model's), or when embedding the query
 * fails: an agent still gets knowledge while the embedding model is down.
 */
export async function searchKnowledge(options: KnowledgeSearchOptions): Promise<KnowledgeSearchResult> {
  const limit = options.limit ?? 5;
  const candidates = Math.max(limit, options.candidates ?? 30);
  const scope = { accountId: options.accountId, collections: options.collections, limit: candidates };
  if (options.collections.length === 0 || options.query.trim() === '') return { hits: [], mode: 'text' };

  // Both retrievers at once: on PostgreSQL they run on two connections, and the query's
  // embedding (a model call) overlaps the full-text search.
  const [text, vector] = await Promise.all([searchByText(options.db, { question: options.query, ...scope }), vectorCandidates(options, candidates)]);
  if (vector.matches === undefined) {
    const hits = fuseByReciprocalRank([text]).slice(0, limit).map(toHit);
    return { hits, mode: 'text', ...(vector.reason ? { fallbackReason: vector.reason } : {}) };
  }
  const hits = fuseByReciprocalRank([vector.matches, text]).slice(0, limit).map(toHit);
  return { hits, mode: 'hybrid' };
}

async function vectorCandidates(options: KnowledgeSearchOptions, candidates: number): Promise<{ matches?: ChunkMatch[]; reason?: string }> {
  const { embedder } = options;
  if (!embedder) return {};
  const indexed = (await listIndexedCollections(options.db, options.accountId)).filter((collection) => options.collections.includes(collection.name));
  if (!indexed.some((collection) => collection.embeddingModel === embedder.modelId)) {
    const models = [...new Set(indexed.map((collection) => collection.embeddingModel ?? 'no embedder'))];
    return { reason: `collections are indexed with ${models.join(', ') || 'nothing yet'}, not ${embedder.modelId}` };
  }
  let queryVector: number[] | undefined;
  try {
    [queryVector] = await embedChecked(embedder, [options.query], 'query');
  } catch (error) {
    return { reason: `embedding the query failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!queryVector) return { reason: 'the embedder returned no vector' };
  const matches = await searchByVector(options.db, {
    accountId: options.accountId,
    collections: options.collections,
    limit: candidates,
    embeddingModel: embedder.modelId,
    vector: queryVector,
  });
  return { matches };
}

type Fused = ChunkMatch & { fused: number; ranks: (number | undefined)[] };

/**
 * Reciprocal rank fusion: each list adds 1 / (k + rank) for every chunk in it.
 * Ties keep the order of the earlier lists (then chunk id), so results are stable.
 */
export function fuseByReciprocalRank(lists: readonly (readonly ChunkMatch[])[], k = RRF_K): Fused[] {
  const byId = new Map<number, Fused>();
  lists.forEach((list, listIndex) => {
    list.forEach((match, position) => {
      const rank = position + 1;
      // Its own fields first: a literal opening with a spread gets a new hidden class per object (src/core/overlay.ts).
      const entry = byId.get(match.id) ?? { fused: 0, ranks: lists.map(() => undefined), ...match };
      entry.fused += 1 / (k + rank);
      entry.ranks[listIndex] = rank;
      byId.set(match.id, entry);
    });
  });
  const firstRank = (entry: Fused) => Math.min(...entry.ranks.map((rank) => rank ?? Number.POSITIVE_INFINITY));
  return [...byId.values()].sort((a, b) => b.fused - a.fused || firstRank(a) - firstRank(b) || a.id - b.id);
}

function toHit(entry: Fused): KnowledgeHit {
  // With one list it is the text list; with two, vector first (see searchKnowledge).
  const [first, second] = entry.ranks;
  const ranks = entry.ranks.length === 2 ? { vectorRank: first, textRank: second } : { textRank: first };
  return {
    chunkId: entry.id,
    collection: entry.collection,
    path: entry.path,
    source: `${entry.collection}/${entry.path}`,
    title: entry.title,
    heading: entry.heading,
    content: entry.content,
    score: entry.fused,
    ...(ranks.vectorRank !== undefined ? { vectorRank: ranks.vectorRank } : {}),
    ...(ranks.textRank !== undefined ? { textRank: ranks.textRank } : {}),
  };
}
