import { cacheHitPriceFraction, ResponseCache, semanticCacheSettings } from '../pipeline/response-cache.ts';
import type { ServiceBuild } from './service-build.ts';

/** How often expired response-cache entries are swept, and how soon after the start the first sweep runs. */
const SWEEP_EVERY_MS = 600_000;
const FIRST_SWEEP_MS = 60_000;

/** The response cache over the store, with its hit price and a sweep of expired entries every ten minutes. */
export function responseCacheServices(build: ServiceBuild): ResponseCache {
  const { db, env, logger, now, startSteps, stops } = build;
  const cache = new ResponseCache({
    db,
    now,
    hitPriceFraction: cacheHitPriceFraction(env),
    semantic: semanticCacheSettings(env),
    onError: (error) => logger.warn({ err: error }, 'the response cache could not be read or written; the call went to the provider'),
  });
  startSteps.push(() => {
    const sweep = () => void cache.sweep().catch((error: unknown) => logger.warn({ err: error }, 'the response cache sweep failed; it runs again later'));
    const first = setTimeout(sweep, FIRST_SWEEP_MS).unref();
    const timer = setInterval(sweep, SWEEP_EVERY_MS).unref();
    stops.push(() => {
      clearTimeout(first);
      clearInterval(timer);
    });
  });
  return cache;
}
