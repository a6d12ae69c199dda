import type { DeploymentLimits, DeploymentQuota, QuotaReservation } from '../routing/deployment-window.ts';
import type { WindowLeases, WindowTake } from './window-leases.ts';

/** The request and token windows of every deployment in PostgreSQL, one set of leases each. */
export type DeploymentLeases = { requests: WindowLeases; tokens: WindowLeases };

/** A measure without a limit: always taken, nothing counted. */
const UNLIMITED: WindowTake = { taken: true, remaining: Number.POSITIVE_INFINITY, resetMs: 0, windowEnd: 0 };

/**
 * A deployment's `rpm`/`tpm` as windows in PostgreSQL that every process and host takes
 * slots from (window-leases.ts): a call takes one request and its tokens (input estimate
 * plus output cap) before it is sent, from this process's leases when they hold enough and
 * else with one statement per window; once answered, the tokens it did not use go back to
 * this process's lease, so they serve its next calls and are never handed out twice.
 */
export class LeasedDeploymentWindow implements DeploymentQuota {
  readonly limits: DeploymentLimits;
  readonly #deployment: string;
  readonly #leases: DeploymentLeases;

  constructor(deployment: string, limits: DeploymentLimits, leases: DeploymentLeases) {
    this.#deployment = deployment;
    this.limits = limits;
    this.#leases = leases;
  }

  canHold(tokens: number): boolean {
    return this.limits.tpm === undefined || tokens <= this.limits.tpm;
  }

  waitMs(_now: number, tokens: number): number {
    const { rpm, tpm } = this.limits;
    const requests = rpm === undefined ? 0 : this.#leases.requests.waitMs(this.#deployment, rpm, 1);
    return Math.max(requests, tpm === undefined ? 0 : this.#leases.tokens.waitMs(this.#deployment, tpm, tokens));
  }

  reserve(_now: number, tokens: number): QuotaReservation | Promise<QuotaReservation> {
    const { rpm, tpm } = this.limits;
    const { requests, tokens: tokenLeases } = this.#leases;
    const request = rpm === undefined ? UNLIMITED : requests.takeNow(this.#deployment, rpm, 1);
    const counted = tpm === undefined ? UNLIMITED : tokenLeases.takeNow(this.#deployment, tpm, tokens);
    if (request !== undefined && counted !== undefined) return this.#placed(request, counted, tokens);
    return Promise.all([request ?? requests.take(this.#deployment, rpm as number, 1), counted ?? tokenLeases.take(this.#deployment, tpm as number, tokens)]).then(([requestTaken, tokensTaken]) =>
      this.#placed(requestTaken, tokensTaken, tokens),
    );
  }

  requestsUsed(): number {
    return this.limits.rpm === undefined ? 0 : this.#leases.requests.usedSeen(this.#deployment, this.limits.rpm);
  }

  tokensUsed(): number {
    return this.limits.tpm === undefined ? 0 : this.#leases.tokens.usedSeen(this.#deployment, this.limits.tpm);
  }

  /** Both windows gave their part, or the part one gave goes back and the call waits for the other. */
  #placed(request: WindowTake, counted: WindowTake, tokens: number): QuotaReservation {
    const { rpm, tpm } = this.limits;
    if (!request.taken || !counted.taken) {
      if (request.taken && rpm !== undefined) this.#leases.requests.settle(this.#deployment, rpm, request.windowEnd, 1);
      if (counted.taken && tpm !== undefined) this.#leases.tokens.settle(this.#deployment, tpm, counted.windowEnd, tokens);
      const waits = [request, counted].map((take) => (take.taken ? 0 : take.resetMs));
      return { placed: false, waitMs: Math.max(1, ...waits) };
    }
    let reckoned = false;
    const reckon = (used: number) => {
      if (reckoned || tpm === undefined) return;
      reckoned = true;
      this.#leases.tokens.settle(this.#deployment, tpm, counted.windowEnd, tokens - used);
    };
    return { placed: true, reckon };
  }
}
