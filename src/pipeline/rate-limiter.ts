import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { JunctionError } from '../core/errors.ts';
import { databaseOutageAnswer } from '../store/database-outage-answer.ts';
import type { Database, Queryable } from '../store/database.ts';
import { type SlotGrant, sweepRateWindows, takeRateSlots } from './rate-window-repository.ts';
import { RateWindows } from './rate-windows.ts';

export type RateLimitState = { limit: number; remaining: number; resetMs: number };

/** This process's part of a key's shared window: slots it took and has not used, until the window ends. */
type SlotLease = { windowEnd: number; endsAt: number; slots: number; used: number; full: boolean };

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
  readonly #shared: Queryable | undefined;
  /** Leases of shared windows, by rpm then key id. */
  readonly #leases = new Map<number, Map<string, SlotLease>>();
  #nextSweepAt = 0;

  constructor(redis: Redis | undefined, database?: Database) {
    this.#redis = redis;
    this.#shared = redis === undefined && database?.engine === 'postgres' ? database : undefined;
  }

  /** Whether every window is in this process (no Redis, no shared database). */
  get inProcess(): boolean {
    return this.#redis === undefined && this.#shared === undefined;
  }

  /** Counts one request; throws 429 `rate_limit_exceeded` (with Retry-After) when over, 503 when the shared window's database or Redis is out. */
  async consume(keyId: string, rpm: number | null): Promise<RateLimitState | undefined> {
    if (rpm === null) return undefined;
    if (this.#redis) return this.#consumeRedis(this.#redis, keyId, rpm);
    if (this.#shared) return this.#consumeShared(this.#shared, keyId, rpm);
    return this.consumeInProcess(keyId, rpm);
  }

  /**
   * `consume` for a key with a limit, answered without waiting where this process can:
   * windows in this process, or a shared window it holds a slot of (or saw full).
   * Undefined when it cannot (nothing counted): call `consume`. Refusals throw.
   */
  consumeNow(keyId: string, rpm: number): RateLimitState | undefined {
    if (this.inProcess) return this.consumeInProcess(keyId, rpm);
    return this.#shared === undefined ? undefined : this.#fromLease(keyId, rpm, Date.now());
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

  /** A slot this process holds, or the refusal of a window it saw full; undefined when it must ask the database. */
  #fromLease(keyId: string, rpm: number, now: number): RateLimitState | undefined {
    const lease = this.#leases.get(rpm)?.get(keyId);
    if (lease === undefined || lease.endsAt <= now) return undefined;
    if (lease.slots > 0) {
      lease.slots -= 1;
      return { limit: rpm, remaining: rpm - lease.used + lease.slots, resetMs: lease.endsAt - now };
    }
    if (lease.full) throw refusal(rpm, lease.endsAt - now);
    return undefined;
  }

  /**
   * A slot from this process's lease, else one statement that takes more from the window.
   * A database outage is a 503 with Retry-After: the limit is never loosened to a
   * per-process one while the database is away.
   */
  async #consumeShared(db: Queryable, keyId: string, rpm: number): Promise<RateLimitState> {
    const askedAt = Date.now();
    const leased = this.#fromLease(keyId, rpm, askedAt);
    if (leased !== undefined) return leased;
    if (askedAt >= this.#nextSweepAt) this.#sweep(db, askedAt);
    let grant: SlotGrant;
    try {
      grant = await takeRateSlots(db, keyId, rpm);
    } catch (error) {
      throw databaseOutageAnswer(error) ?? error;
    }
    let byKey = this.#leases.get(rpm);
    if (!byKey) {
      byKey = new Map();
      this.#leases.set(rpm, byKey);
    }
    let lease = byKey.get(keyId);
    if (lease !== undefined && grant.windowEnd < lease.windowEnd) {
      // A take that crossed one of a newer window: it answers this call alone, the lease stays the newer window's.
      if (grant.granted === 0) throw refusal(rpm, grant.msLeft);
      return { limit: rpm, remaining: rpm - grant.used, resetMs: Math.max(0, grant.msLeft) };
    }
    if (lease === undefined || lease.windowEnd !== grant.windowEnd) {
      // Timed from before the statement left, so this process's end is never after the database's.
      lease = { windowEnd: grant.windowEnd, endsAt: askedAt + grant.msLeft, slots: 0, used: 0, full: false };
      byKey.set(keyId, lease);
    }
    // Takes of one window may come back out of order: what was handed out only grows.
    lease.used = Math.max(lease.used, grant.used);
    lease.full ||= grant.used >= rpm;
    // Slots a concurrent take of this process brought serve too, even when this one found the window full.
    lease.slots += grant.granted;
    const resetMs = Math.max(0, lease.endsAt - Date.now());
    if (lease.slots === 0) throw refusal(rpm, resetMs);
    lease.slots -= 1;
    return { limit: rpm, remaining: rpm - lease.used + lease.slots, resetMs };
  }

  /** Forgets leases of windows that ended, here and (without waiting for it) in the database, at most once per SWEEP_MS. */
  #sweep(db: Queryable, now: number): void {
    this.#nextSweepAt = now + SWEEP_MS;
    for (const byKey of this.#leases.values()) for (const [keyId, lease] of byKey) if (lease.endsAt <= now) byKey.delete(keyId);
    // A failed sweep only leaves old rows for the next one.
    sweepRateWindows(db).catch(() => undefined);
  }
}

const WINDOW_MS = 60_000;
const SWEEP_MS = 10 * 60_000;

const REDIS_RETRY_AFTER_SECONDS = 2;

const redisOutage = (): JunctionError =>
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
