import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { JunctionError } from '../core/errors.ts';

export type RateLimitState = { limit: number; remaining: number; resetMs: number };

/**
 * Requests-per-minute windows per key, with rate-limiter-flexible: in memory for one
 * process, in Redis (shared by every process) when REDIS_URL is set. One limiter per
 * distinct rpm value, because a limiter's point budget is fixed at construction.
 */
export class KeyRateLimiter {
  readonly #redis: Redis | undefined;
  readonly #limiters = new Map<number, RateLimiterAbstract>();

  constructor(redis: Redis | undefined) {
    this.#redis = redis;
  }

  #limiter(rpm: number): RateLimiterAbstract {
    let limiter = this.#limiters.get(rpm);
    if (!limiter) {
      const options = { points: rpm, duration: 60, keyPrefix: `junction-rpm-${rpm}` };
      limiter = this.#redis ? new RateLimiterRedis({ ...options, storeClient: this.#redis }) : new RateLimiterMemory(options);
      this.#limiters.set(rpm, limiter);
    }
    return limiter;
  }

  /** Counts one request; throws 429 `rate_limit_exceeded` (with Retry-After) when over. */
  async consume(keyId: string, rpm: number | null): Promise<RateLimitState | undefined> {
    if (rpm === null) return undefined;
    try {
      const result = await this.#limiter(rpm).consume(keyId, 1);
      return { limit: rpm, remaining: result.remainingPoints, resetMs: result.msBeforeNext };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new JunctionError(
        'rate_limit_exceeded',
        `This key allows ${rpm} requests per minute. Retry after ${retryAfter} s, or raise rate_limit_rpm.`,
        { headers: { 'retry-after': String(retryAfter), ...rateLimitHeaders({ limit: rpm, remaining: 0, resetMs: rejection.msBeforeNext }) } },
      );
    }
  }
}

export const rateLimitHeaders = (state: RateLimitState): Record<string, string> => ({
  'x-ratelimit-limit-requests': String(state.limit),
  'x-ratelimit-remaining-requests': String(Math.max(0, state.remaining)),
  'x-ratelimit-reset-requests': `${Math.max(0, Math.ceil(state.resetMs / 1000))}s`,
});
