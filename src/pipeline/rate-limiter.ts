import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { JunctionError } from '../core/errors.ts';
import { RateWindows } from './rate-windows.ts';

export type RateLimitState = { limit: number; remaining: number; resetMs: number };

/**
 * Requests-per-minute windows per key: in this process (RateWindows) for one process,
 * in Redis (rate-limiter-flexible, shared by every process) when REDIS_URL is set. A
 * key's window is per rpm value, so a key whose limit changes starts a fresh one.
 */
export class KeyRateLimiter {
  readonly #redis: Redis | undefined;
  readonly #redisLimiters = new Map<number, RateLimiterRedis>();
  readonly #windows = new Map<number, RateWindows>();

  constructor(redis: Redis | undefined) {
    this.#redis = redis;
  }

  /** Whether `consumeInProcess` can answer (no Redis): the request path then needs no await. */
  get inProcess(): boolean {
    return this.#redis === undefined;
  }

  /** Counts one request; throws 429 `rate_limit_exceeded` (with Retry-After) when over. */
  async consume(keyId: string, rpm: number | null): Promise<RateLimitState | undefined> {
    if (rpm === null) return undefined;
    if (!this.#redis) return this.consumeInProcess(keyId, rpm);
    let limiter = this.#redisLimiters.get(rpm);
    if (!limiter) {
      limiter = new RateLimiterRedis({ points: rpm, duration: 60, keyPrefix: `junction-rpm-${rpm}`, storeClient: this.#redis });
      this.#redisLimiters.set(rpm, limiter);
    }
    try {
      const result = await limiter.consume(keyId, 1);
      return { limit: rpm, remaining: result.remainingPoints, resetMs: result.msBeforeNext };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw refusal(rpm, rejection.msBeforeNext);
    }
  }

  /** `consume` answered at once, for a limiter without Redis (see `inProcess`); refusals throw. */
  consumeInProcess(keyId: string, rpm: number | null): RateLimitState | undefined {
    if (rpm === null) return undefined;
    let windows = this.#windows.get(rpm);
    if (!windows) {
      windows = new RateWindows(WINDOW_MS);
      this.#windows.set(rpm, windows);
    }
    const { count, msLeft } = windows.hit(keyId, Date.now());
    if (count > rpm) throw refusal(rpm, msLeft);
    return { limit: rpm, remaining: rpm - count, resetMs: msLeft };
  }
}

const WINDOW_MS = 60_000;

function refusal(rpm: number, msBeforeNext: number): JunctionError {
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new JunctionError('rate_limit_exceeded', `This key allows ${rpm} requests per minute. Retry after ${retryAfter} s, or raise rate_limit_rpm.`, {
    headers: { 'retry-after': String(retryAfter), ...rateLimitHeaders({ limit: rpm, remaining: 0, resetMs: msBeforeNext }) },
  });
}

export const rateLimitHeaders = (state: RateLimitState): Record<string, string> => ({
  'x-ratelimit-limit-requests': String(state.limit),
  'x-ratelimit-remaining-requests': String(Math.max(0, state.remaining)),
  'x-ratelimit-reset-requests': `${Math.max(0, Math.ceil(state.resetMs / 1000))}s`,
});
