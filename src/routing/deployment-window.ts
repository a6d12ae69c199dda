/**
 * A deployment's own quota, as its provider account counts it: requests (`rpm`) and tokens
 * (`tpm`) per minute. A call takes its place before it is sent (tokens: its input estimate
 * plus its output cap) and corrects its tokens once the provider says what it used.
 */

export const WINDOW_MS = 60_000;

export type DeploymentLimits = { rpm: number | undefined; tpm: number | undefined };

/** A place taken for a call, with the correction of its tokens to come; or the wait until one frees. */
export type QuotaReservation = { placed: true; reckon: (tokens: number) => void } | { placed: false; waitMs: number };

/**
 * The window a deployment's calls count in: this process's sliding log (DeploymentWindow),
 * or one every process shares when there are several (in PostgreSQL or Redis).
 */
export interface DeploymentQuota {
  readonly limits: DeploymentLimits;
  /** Whether a call of `tokens` can ever fit: one above `tpm` on its own never does. */
  canHold(tokens: number): boolean;
  /** Milliseconds until a call of `tokens` may fit, as far as this process knows without asking (0: try it). */
  waitMs(now: number, tokens: number): number;
  /** Takes a call's place now, answered without a promise where this process knows enough. */
  reserve(now: number, tokens: number): QuotaReservation | Promise<QuotaReservation>;
  requestsUsed(now: number): number;
  tokensUsed(now: number): number;
}

/** One call in the window; `tokens` changes when the call's real usage is known. */
export type WindowEntry = { at: number; tokens: number };

/** A deployment's quota counted in this process alone: exact where one process serves (the embedded store). */
export class DeploymentWindow implements DeploymentQuota {
  readonly #entries: WindowEntry[] = [];

  constructor(readonly limits: DeploymentLimits) {}

  /** Whether a call of `tokens` fits now. */
  fits(now: number, tokens: number): boolean {
    return this.waitMs(now, tokens) === 0;
  }

  /** Whether a call of `tokens` can ever fit: one above `tpm` on its own never does. */
  canHold(tokens: number): boolean {
    return this.limits.tpm === undefined || tokens <= this.limits.tpm;
  }

  /** Milliseconds until a call of `tokens` fits (0: now); assumes `canHold`. */
  waitMs(now: number, tokens: number): number {
    this.#prune(now);
    let wait = 0;
    const { rpm, tpm } = this.limits;
    if (rpm !== undefined && this.#entries.length >= rpm) {
      // The oldest calls must leave until one place is free.
      const freeing = this.#entries[this.#entries.length - rpm];
      if (freeing) wait = Math.max(wait, freeing.at + WINDOW_MS - now);
    }
    if (tpm !== undefined) {
      let excess = this.tokensUsed(now) + tokens - tpm;
      for (const entry of this.#entries) {
        if (excess <= 0) break;
        excess -= entry.tokens;
        wait = Math.max(wait, entry.at + WINDOW_MS - now);
      }
    }
    return Math.max(0, wait);
  }

  /** A call leaves now: its place in the window, to correct once its usage is known. */
  take(now: number, tokens: number): WindowEntry {
    this.#prune(now);
    const entry = { at: now, tokens };
    this.#entries.push(entry);
    return entry;
  }

  reserve(now: number, tokens: number): QuotaReservation {
    const waitMs = this.waitMs(now, tokens);
    if (waitMs > 0) return { placed: false, waitMs };
    const entry = this.take(now, tokens);
    return { placed: true, reckon: (used) => void (entry.tokens = used) };
  }

  requestsUsed(now: number): number {
    this.#prune(now);
    return this.#entries.length;
  }

  tokensUsed(now: number): number {
    this.#prune(now);
    return this.#entries.reduce((sum, entry) => sum + entry.tokens, 0);
  }

  #prune(now: number): void {
    let expired = 0;
    while (expired < this.#entries.length && (this.#entries[expired]?.at ?? now) + WINDOW_MS <= now) expired += 1;
    if (expired > 0) this.#entries.splice(0, expired);
  }
}
