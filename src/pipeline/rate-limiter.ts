import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { JunctionError } from '../core/errors.ts';
import { databaseOutageAnswer } from '../store/database-outage-answer.ts';
import type { Database } from '../store/database.ts';
import { sweepRateWindows, takeRateSlots } from './rate-window-repository.ts';
import { RateWindows } from './rate-windows.ts';
import { type WindowTake, WindowLeases } from './window-leases.ts';

export type RateLimitState = { limit: number; remaining: number; resetMs: number };

/**
 * Requests-per-minute windows per key, exact however many processes serve: in Redis
 * (rate-limiter-flexible) when REDIS_URL is set; else in PostgreSQL, where a process takes
 * request slots from the key's window row (one statement per call under 128 rpm, one per
 * slice above; see rate-window-repository.ts) and a key without a limit touches nothing;
 * on PGlite, which is one process, in this process (RateWindows). A key's window is per
 * rpm value, so a key whose limit changes starts a fresh one.
 */
export class KeyRateLimiter {
  readonly #redis: Redis | undefined;
  readonly #redisLimiters = new Map<number, RateLimiterRedis>();
  readonly #windows = new Map<number, RateWindows>();
  /** Leases of the windows in PostgreSQL, when they are there. */
  readonly #shared: WindowLeases | undefined;

  constructor(redis: Redis | undefined, database?: Database) {
    this.#redis = redis;
    this.#shared = redis === undefined && database?.engine === 'postgres' ? sharedKeyWindows(database) : undefined;
  }

  /** Whether every window is in this process (no Redis, no shared database). */
  get inProcess(): boolean {
    return this.#redis === undefined && this.#shared === undefined;
  }

  /** Counts one request; throws 429 `rate_limit_exceeded` (with Retry-After) when over, 503 when the shared window's database or Redis is out. */
  async consume(keyId: string, rpm: number | null): Promise<RateLimitState | undefined> {
    if (rpm === null) return undefined;
    if (this.#redis) return this.#consumeRedis(this.#redis, keyId, rpm);
    // A slot from this process's lease, else one statement that takes more from the window's row.
    if (this.#shared) return stateOf(await this.#shared.take(keyId, rpm, 1), rpm);
    return this.consumeInProcess(keyId, rpm);
  }

  /**
   * `consume` for a key with a limit, answered without waiting where this process can:
   * windows in this process, or a shared window it holds a slot of (or saw full).
   * Undefined when it cannot (nothing counted): call `consume`. Refusals throw.
   */
  consumeNow(keyId: string, rpm: number): RateLimitState | undefined {
    if (this.inProcess) return this.consumeInProcess(keyId, rpm);
    const taken = this.#shared?.takeNow(keyId, rpm, 1);
    return taken && stateOf(taken, rpm);
  }

  /** `consume` for windows in this process (see `inProcess`), answered at once; refusals throw. */
  consumeInProcess(keyId: string, rpm: number | null): RateLimitState | undefined {
    if (rpm === null) return undefined;
    // Counting a shared limit in a window of this process would multiply it by the number of processes.
    if (!this.inProcess) throw new Error('consumeInProcess called for a window shared with other processes; call consume');
    let windows = this.#windows.get(rpm);
    if (!windows) {
      windows = new RateWindows(WINDOW_MS);
      this.#windows.set(rpm, windows);
    }
    const { count, msLeft } = windows.hit(keyId, Date.now());
    if (count > rpm) throw refusal(rpm, msLeft);
    return { limit: rpm, remaining: rpm - count, resetMs: msLeft };
  }

  async #consumeRedis(redis: Redis, keyId: string, rpm: number): Promise<RateLimitState> {
    let limiter = this.#redisLimiters.get(rpm);
    if (!limiter) {
      limiter = new RateLimiterRedis({ points: rpm, duration: 60, keyPrefix: `junction-rpm-${rpm}`, storeClient: redis });
      this.#redisLimiters.set(rpm, limiter);
    }
    try {
      const result = await limiter.consume(keyId, 1);
      return { limit: rpm, remaining: result.remainingPoints, resetMs: result.msBeforeNext };
    } catch (rejection) {
      // Redis unreachable: the limit cannot be checked, and is never skipped, so the call waits for it.
      if (!(rejection instanceof RateLimiterRes)) throw redisOutage();
      throw refusal(rpm, rejection.msBeforeNext);
    }
  }
}

/** A take from a key's shared window as the rate headers say it; a refusal throws. */
function stateOf(taken: WindowTake, rpm: number): RateLimitState {
  if (!taken.taken) throw refusal(rpm, taken.resetMs);
  return { limit: rpm, remaining: taken.remaining, resetMs: taken.resetMs };
}

const WINDOW_MS = 60_000;

/**
 * Keys' request windows in PostgreSQL. A database outage is a 503 with Retry-After: the
 * limit is never loosened to a per-process one while the database is away.
 */
const sharedKeyWindows = (db: Database): WindowLeases =>
  new WindowLeases({
    take: (keyId, rpm) =>
      takeRateSlots(db, keyId, rpm).catch((error: unknown) => {
        throw databaseOutageAnswer(error) ?? error;
      }),
    sweep: () => sweepRateWindows(db),
  });

const REDIS_RETRY_AFTER_SECONDS = 2;

/** Redis unreachable: a limit that cannot be checked is never skipped, so the call waits for it. */
export const redisOutage = (): JunctionError =>
  new JunctionError('service_unavailable', `Request-rate limits cannot be checked right now (their store does not answer). Retry after ${REDIS_RETRY_AFTER_SECONDS} s.`, {
    headers: { 'retry-after': String(REDIS_RETRY_AFTER_SECONDS) },
  });

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
