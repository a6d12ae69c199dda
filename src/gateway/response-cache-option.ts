import { z } from 'zod';
import { isPlainRecord } from '../core/plain-record.ts';
import { parseInput } from '../http/parse-body.ts';
import { MAX_CACHE_TTL_SECONDS } from '../keys/key-input-schema.ts';
import type { ChatInput, ChatResult } from '../pipeline/chat-pipeline.ts';

/** The response header saying whether a call that opted into the response cache was answered from it. */
export const CACHE_HEADER = 'x-junction-cache';
/** The response header giving a hit found by meaning its prompt's cosine similarity to the request's. */
export const CACHE_SIMILARITY_HEADER = 'x-junction-cache-similarity';

const CacheFieldSchema = z.object({
  cache: z.strictObject({ ttl_seconds: z.number().int().min(0).max(MAX_CACHE_TTL_SECONDS), semantic: z.boolean().optional() }),
});

/**
 * Junction's `cache` field of a chat, messages or generate-content body, taken out of the
 * body before it is read (it is Junction's, never an upstream's) and checked: `{"ttl_seconds":
 * N}` opts the call into the response cache for N seconds, 0 keeps it out; `"semantic": true`
 * also lets it match an earlier prompt of the same meaning when the deployment allows it.
 */
export function takeCacheOption(body: unknown): ChatInput['cache'] {
  if (!isPlainRecord(body) || !Object.hasOwn(body, 'cache')) return undefined;
  const value = body.cache;
  delete body.cache;
  const parsed = parseInput(CacheFieldSchema, { cache: value });
  return { ttlSeconds: parsed.cache.ttl_seconds, ...(parsed.cache.semantic !== undefined && { semantic: parsed.cache.semantic }) };
}

/**
 * `x-junction-cache: hit|miss` for a call that opted in, nothing for one that did not; and
 * `x-junction-cache-similarity` (four decimals) for a hit found by meaning.
 */
export function cacheHeaders(result: Pick<ChatResult, 'cache' | 'cacheSimilarity'>): Record<string, string> {
  if (result.cache === undefined) return {};
  if (result.cacheSimilarity === undefined) return { [CACHE_HEADER]: result.cache };
  return { [CACHE_HEADER]: result.cache, [CACHE_SIMILARITY_HEADER]: String(Math.round(result.cacheSimilarity * 10_000) / 10_000) };
}
