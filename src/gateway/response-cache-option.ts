import { z } from 'zod';
import { isPlainRecord } from '../core/plain-record.ts';
import { parseInput } from '../http/parse-body.ts';
import { MAX_CACHE_TTL_SECONDS } from '../keys/key-input-schema.ts';
import type { CacheState, ChatInput } from '../pipeline/chat-pipeline.ts';

/** The response header saying whether a call that opted into the response cache was answered from it. */
export const CACHE_HEADER = 'x-junction-cache';

const CacheFieldSchema = z.object({
  cache: z.strictObject({ ttl_seconds: z.number().int().min(0).max(MAX_CACHE_TTL_SECONDS) }),
});

/**
 * Junction's `cache` field of a chat, messages or generate-content body, taken out of the
 * body before it is read (it is Junction's, never an upstream's) and checked: `{"ttl_seconds":
 * N}` opts the call into the response cache for N seconds, 0 keeps it out.
 */
export function takeCacheOption(body: unknown): ChatInput['cache'] {
  if (!isPlainRecord(body) || !Object.hasOwn(body, 'cache')) return undefined;
  const value = body.cache;
  delete body.cache;
  const parsed = parseInput(CacheFieldSchema, { cache: value });
  return { ttlSeconds: parsed.cache.ttl_seconds };
}

/** `x-junction-cache: hit|miss` for a call that opted in; nothing for one that did not. */
export const cacheHeaders = (state: CacheState | undefined): Record<string, string> => (state === undefined ? {} : { [CACHE_HEADER]: state });
