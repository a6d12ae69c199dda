import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { DeploymentLimits, DeploymentQuota, QuotaReservation } from '../routing/deployment-window.ts';
import { redisOutage } from './rate-limiter.ts';

/** What one window answered: taken (with the window's end on this process's clock) or refused. */
type Consumed = { taken: boolean; endsAt: number; remaining: number };

const UNLIMITED: Consumed = { taken: true, endsAt: 0, remaining: Number.POSITIVE_INFINITY };

/**
 * A refund lands only while its window has at least this long left: rate-limiter-flexible
 * opens a new window for a refund that comes after the old one ended, which would count it
 * as room the provider never gave.
 */
const REFUND_MARGIN_MS = 1_000;

/**
 * A deployment's `rpm`/`tpm` as windows in Redis (rate-limiter-flexible), shared by every
 * process and host on it: a call takes one request and its tokens before it is sent, both at
 * once; what a refused take counted is given back, and so are the tokens an answered call did
 * not use. Redis unreachable is a 503: the limit is never skipped.
 */
export class RedisDeploymentWindow implements DeploymentQuota {
  readonly limits: DeploymentLimits;
  readonly #deployment: string;
  readonly #requests: RateLimiterRedis | undefined;
  readonly #tokens: RateLimiterRedis | undefined;
  readonly #now: () => number;
  /** Until when the request window is full, as last seen here. */
  #requestsFullUntil = 0;
  #seen = { requests: 0, tokens: 0, endsAt: 0 };

  constructor(deployment: string, limits: DeploymentLimits, redis: Redis, now: () => number) {
    this.#deployment = deployment;
    this.limits = limits;
    this.#now = now;
    const limiter = (measure: string, points: number) => new RateLimiterRedis({ points, duration: 60, keyPrefix: `junction-deployment-${measure}-${points}`, storeClient: redis });
    this.#requests = limits.rpm === undefined ? undefined : limiter('rpm', limits.rpm);
    this.#tokens = limits.tpm === undefined ? undefined : limiter('tpm', limits.tpm);
  }

  canHold(tokens: number): boolean {
    return this.limits.tpm === undefined || tokens <= this.limits.tpm;
  }

  waitMs(now: number): number {
    return Math.max(0, this.#requestsFullUntil - now);
  }

  async reserve(_now: number, tokens: number): Promise<QuotaReservation> {
    const [request, counted] = await Promise.all([this.#consume(this.#requests, 1), this.#consume(this.#tokens, tokens)]);
    const now = this.#now();
    if (!request.taken) this.#requestsFullUntil = request.endsAt;
    this.#seen = {
      requests: (this.limits.rpm ?? 0) - request.remaining,
      tokens: (this.limits.tpm ?? 0) - counted.remaining,
      endsAt: Math.max(request.endsAt, counted.endsAt),
    };
    if (!request.taken || !counted.taken) {
      // A refused take counted too, and the other part is not used: both go back, so the windows hold only what calls took.
      this.#refund(this.#requests, 1, request.endsAt, now);
      this.#refund(this.#tokens, tokens, counted.endsAt, now);
      const waits = [request, counted].map((consumed) => (consumed.taken ? 0 : consumed.endsAt - now));
      return { placed: false, waitMs: Math.max(1, ...waits) };
    }
    let reckoned = false;
    return {
      placed: true,
      reckon: (used) => {
        if (reckoned || this.#tokens === undefined) return;
        reckoned = true;
        // Tokens used beyond the estimate count too, or the window would say less than the provider counted.
        if (used > tokens) void this.#tokens.penalty(this.#deployment, used - tokens).catch(() => undefined);
        else this.#refund(this.#tokens, tokens - used, counted.endsAt, this.#now());
      },
    };
  }

  requestsUsed(now: number): number {
    return now < this.#seen.endsAt ? this.#seen.requests : 0;
  }

  tokensUsed(now: number): number {
    return now < this.#seen.endsAt ? this.#seen.tokens : 0;
  }

  async #consume(limiter: RateLimiterRedis | undefined, points: number): Promise<Consumed> {
    if (limiter === undefined) return UNLIMITED;
    const askedAt = this.#now();
    try {
      const result = await limiter.consume(this.#deployment, points);
      return { taken: true, endsAt: askedAt + result.msBeforeNext, remaining: result.remainingPoints };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw redisOutage();
      return { taken: false, endsAt: askedAt + rejection.msBeforeNext, remaining: 0 };
    }
  }

  #refund(limiter: RateLimiterRedis | undefined, points: number, endsAt: number, now: number): void {
    if (limiter === undefined || points <= 0 || endsAt - now < REFUND_MARGIN_MS) return;
    // A refund that fails leaves the window counting more than was used: never more than the provider allows.
    void limiter.reward(this.#deployment, points).catch(() => undefined);
  }
}
