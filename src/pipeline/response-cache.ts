import { computeChatCost } from '../catalog/costs.ts';
import type { CatalogModel } from '../catalog/types.ts';
import type { Usage } from '../core/model-types.ts';
import type { Queryable } from '../store/database.ts';
import { type CachedAnswer, isStorableAnswer, parseCachedAnswer } from './cached-answer.ts';
import { deleteExpiredEntries, findCachedEntry, findNearestEntry, type SemanticColumns, saveCachedEntry } from './response-cache-repository.ts';

/** An answer found in the cache, with the catalog id of the model that first gave it; `similarity` when it was found by meaning. */
export type CacheHit = { model: string; answer: CachedAnswer; similarity?: number };

/** Semantic matching, when the deployment turned it on: the embedding model and the similarity a hit needs. */
export type SemanticCacheSettings = { model: string; threshold: number };

export type { SemanticColumns } from './response-cache-repository.ts';

export type ResponseCacheOptions = {
  db: Queryable;
  now: () => Date;
  /** What a hit costs, as a fraction of the answer's price when it was produced (JUNCTION_CACHE_HIT_PRICE_FRACTION). */
  hitPriceFraction: number;
  /** Answers larger than this (UTF-8 bytes of their JSON) are not kept. */
  maxEntryBytes?: number;
  /** Entries the in-process front holds; 0 turns it off. */
  memoryEntries?: number;
  onError?: (error: unknown) => void;
  /** Unset: exact matching only (JUNCTION_SEMANTIC_CACHE_MODEL). */
  semantic?: SemanticCacheSettings | undefined;
};

/** A stored answer is at most this large: a bound on the table and on every hit's read. */
export const DEFAULT_MAX_ENTRY_BYTES = 1_048_576;
const DEFAULT_MEMORY_ENTRIES = 256;
/** The in-process front's bound on the JSON it holds, whatever the entries' sizes. */
const MEMORY_BYTES = 32 * 1_048_576;
/** Expired entries one sweep statement deletes: a sweep never holds a long lock. */
const SWEEP_BATCH = 1_000;
const SWEEP_BATCHES = 20;

type MemoryEntry = CacheHit & { expiresAt: number; bytes: number };

/**
 * The gateway's response cache: per account, exact match on the canonical request
 * (response-cache-key.ts), in the store (response_cache) with a small in-process front of
 * recent entries so a hit on the process that stored it needs no database round trip.
 * Entries are never changed once written, only replaced or expired, so the front can only
 * be behind the table, never wrong about an entry it holds.
 */
export class ResponseCache {
  readonly #options: ResponseCacheOptions;
  readonly #maxEntryBytes: number;
  readonly #memoryEntries: number;
  /** Insertion order is recency order: a hit moves its entry to the end. */
  readonly #memory = new Map<string, MemoryEntry>();
  #memoryBytes = 0;

  constructor(options: ResponseCacheOptions) {
    this.#options = options;
    this.#maxEntryBytes = options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES;
    this.#memoryEntries = options.memoryEntries ?? DEFAULT_MEMORY_ENTRIES;
  }

  get maxEntryBytes(): number {
    return this.#maxEntryBytes;
  }

  /** Semantic matching's settings, or undefined when the deployment did not turn it on. */
  get semantic(): SemanticCacheSettings | undefined {
    return this.#options.semantic;
  }

  /** Reports a failure of a cache step the caller does not fail for. */
  reportError(error: unknown): void {
    this.#options.onError?.(error);
  }

  /**
   * The account's live answer of the same shape whose text is nearest in meaning, when its
   * similarity reaches the threshold; else undefined (a failed read is a miss).
   */
  async lookupSimilar(accountId: string, semantic: SemanticColumns): Promise<CacheHit | undefined> {
    const settings = this.#options.semantic;
    if (settings === undefined || semantic.vector.length === 0) return undefined;
    let nearest;
    try {
      nearest = await findNearestEntry(this.#options.db, accountId, semantic, this.#options.now());
    } catch (error) {
      this.#options.onError?.(error);
      return undefined;
    }
    if (!nearest || nearest.similarity < settings.threshold) return undefined;
    const answer = parseCachedAnswer(nearest.entry);
    return answer && { model: nearest.model, answer, similarity: nearest.similarity };
  }

  /** The account's live answer for the request hash, or undefined (a failed read is a miss, never an error for the caller). */
  async lookup(accountId: string, requestHash: string): Promise<CacheHit | undefined> {
    const now = this.#options.now();
    const id = memoryId(accountId, requestHash);
    const remembered = this.#memory.get(id);
    if (remembered !== undefined) {
      this.#forget(id);
      if (remembered.expiresAt > now.getTime()) {
        this.#remember(id, remembered);
        return { model: remembered.model, answer: remembered.answer };
      }
    }
    let stored;
    try {
      stored = await findCachedEntry(this.#options.db, accountId, requestHash, now);
    } catch (error) {
      this.#options.onError?.(error);
      return undefined;
    }
    const answer = stored && parseCachedAnswer(stored.entry);
    if (!stored || !answer) return undefined;
    this.#remember(id, { model: stored.model, answer, expiresAt: stored.expiresAt.getTime(), bytes: stored.entry.length });
    return { model: stored.model, answer };
  }

  /**
   * Keeps a complete answer for `ttlSeconds`. The in-process front has it at once; the
   * returned promise settles when the table has it too (callers need not wait). Answers
   * that did not end on their own, or are larger than the bound, are not kept.
   */
  store(accountId: string, requestHash: string, model: string, answer: CachedAnswer, ttlSeconds: number, semantic?: SemanticColumns): Promise<boolean> {
    if (!isStorableAnswer(answer)) return Promise.resolve(false);
    const entry = JSON.stringify(answer);
    const bytes = Buffer.byteLength(entry, 'utf8');
    if (bytes > this.#maxEntryBytes) return Promise.resolve(false);
    const now = this.#options.now();
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    // A copy, from the text just written: the caller keeps using its own answer object.
    this.#remember(memoryId(accountId, requestHash), { model, answer: JSON.parse(entry) as CachedAnswer, expiresAt: expiresAt.getTime(), bytes });
    const columns = semantic && semantic.vector.length > 0 ? semantic : undefined;
    return saveCachedEntry(this.#options.db, accountId, requestHash, { model, entry, expiresAt }, now, columns).then(
      () => true,
      (error: unknown) => {
        this.#options.onError?.(error);
        return false;
      },
    );
  }

  /** What a hit costs: the configured fraction of the answer's price, rounded up to a whole µUSD. */
  hitCost(model: CatalogModel, usage: Usage): number {
    const fraction = this.#options.hitPriceFraction;
    if (fraction <= 0) return 0;
    return Math.ceil(computeChatCost(model, usage) * fraction);
  }

  /** Deletes expired entries in bounded batches; returns how many went. */
  async sweep(): Promise<number> {
    const now = this.#options.now();
    for (const [id, entry] of this.#memory) if (entry.expiresAt <= now.getTime()) this.#forget(id);
    let deleted = 0;
    for (let batch = 0; batch < SWEEP_BATCHES; batch += 1) {
      const count = await deleteExpiredEntries(this.#options.db, now, SWEEP_BATCH);
      deleted += count;
      if (count < SWEEP_BATCH) break;
    }
    return deleted;
  }

  #remember(id: string, entry: MemoryEntry): void {
    if (this.#memoryEntries <= 0) return;
    this.#forget(id);
    this.#memory.set(id, entry);
    this.#memoryBytes += entry.bytes;
    while (this.#memory.size > this.#memoryEntries || this.#memoryBytes > MEMORY_BYTES) {
      const oldest = this.#memory.keys().next();
      if (oldest.done) break;
      this.#forget(oldest.value);
    }
  }

  #forget(id: string): void {
    const entry = this.#memory.get(id);
    if (entry === undefined) return;
    this.#memory.delete(id);
    this.#memoryBytes -= entry.bytes;
  }
}

const memoryId = (accountId: string, requestHash: string): string => `${accountId}:${requestHash}`;

/** JUNCTION_CACHE_HIT_PRICE_FRACTION: what a response-cache hit costs as a fraction of the answer's price (default 0). */
export function cacheHitPriceFraction(env: Readonly<Record<string, string | undefined>>): number {
  const value = Number(env.JUNCTION_CACHE_HIT_PRICE_FRACTION ?? 0);
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new Error('JUNCTION_CACHE_HIT_PRICE_FRACTION must be a number from 0 to 1');
  return value;
}

/** The semantic cache's settings: JUNCTION_SEMANTIC_CACHE_MODEL turns it on, JUNCTION_SEMANTIC_CACHE_THRESHOLD (default 0.95) is the similarity a hit needs. */
export function semanticCacheSettings(env: Readonly<Record<string, string | undefined>>): SemanticCacheSettings | undefined {
  const model = env.JUNCTION_SEMANTIC_CACHE_MODEL?.trim();
  if (!model) return undefined;
  const raw = env.JUNCTION_SEMANTIC_CACHE_THRESHOLD?.trim();
  const threshold = raw ? Number(raw) : 0.95;
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) throw new Error('JUNCTION_SEMANTIC_CACHE_THRESHOLD must be a number from 0 to 1');
  return { model, threshold };
}
