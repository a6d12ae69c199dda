/**
 * One deployment's health in this process: calls in flight, latency (EWMA), a window of
 * recent outcomes, a circuit breaker and a 429 park. The breaker opens after
 * `failureThreshold` failures in a row or an error rate over the window, keeps the
 * deployment out for the cooldown, then lets one probe through (half-open) and closes
 * when it succeeds.
 */
import type { RoutingSettings } from '../catalog/deployment-schema.ts';

export type BreakerState = 'closed' | 'open' | 'half_open';

/** Weight of the newest latency sample in the moving average. */
const LATENCY_ALPHA = 0.3;

export class DeploymentHealth {
  inFlight = 0;
  /** Time to the answer (streams: to the first event), averaged; undefined until measured. */
  latencyMs: number | undefined;
  successes = 0;
  failures = 0;
  rateLimited = 0;
  state: BreakerState = 'closed';
  #consecutiveFailures = 0;
  #openUntil = 0;
  #parkedUntil = 0;
  #probing = false;
  readonly #window: boolean[] = [];

  constructor(readonly settings: RoutingSettings) {}

  /** Whether a call may go here now; a cooled-down open breaker admits exactly one probe. */
  available(now: number): boolean {
    if (now < this.#parkedUntil) return false;
    if (this.state === 'closed') return true;
    if (this.state === 'open') return now >= this.#openUntil;
    return !this.#probing;
  }

  /** Milliseconds until `available` may turn true, for a Retry-After. */
  waitMs(now: number): number {
    const breaker = this.state === 'open' ? this.#openUntil - now : 0;
    return Math.max(0, this.#parkedUntil - now, breaker);
  }

  /** Milliseconds an open breaker still keeps the deployment out (0 once a probe may go). */
  breakerWaitMs(now: number): number {
    return this.state === 'open' ? Math.max(0, this.#openUntil - now) : 0;
  }

  /** When a 429's park ends (epoch ms), undefined when not parked. */
  parkedUntil(now: number): number | undefined {
    return now < this.#parkedUntil ? this.#parkedUntil : undefined;
  }

  parked(now: number): boolean {
    return now < this.#parkedUntil;
  }

  errorRate(): number {
    if (this.#window.length === 0) return 0;
    return this.#window.filter((failed) => failed).length / this.#window.length;
  }

  /** A call leaves for this deployment: past an open breaker's cooldown it is the probe. */
  begin(): void {
    this.inFlight += 1;
    if (this.state === 'open') this.state = 'half_open';
    if (this.state === 'half_open') this.#probing = true;
  }

  /**
   * The deployment answered (a 4xx about the request counts: it is up). A stream stays in
   * flight until `release`, so least busy counts the streams still running.
   */
  succeed(latencyMs: number | undefined, stillInFlight = false): void {
    if (!stillInFlight) this.inFlight -= 1;
    this.successes += 1;
    this.#consecutiveFailures = 0;
    if (latencyMs !== undefined) this.latencyMs = this.latencyMs === undefined ? latencyMs : this.latencyMs + LATENCY_ALPHA * (latencyMs - this.latencyMs);
    if (this.state === 'half_open') {
      this.state = 'closed';
      this.#probing = false;
      this.#window.length = 0;
    }
    this.#record(false);
  }

  /** A stream that `succeed` left in flight has ended. */
  release(): void {
    this.inFlight -= 1;
  }

  /** A connect error, timeout, 5xx or refused credentials. */
  fail(now: number): void {
    this.inFlight -= 1;
    this.failures += 1;
    this.#consecutiveFailures += 1;
    this.#record(true);
    const { failureThreshold, errorRate, window, cooldownMs } = this.settings;
    const overRate = this.#window.length >= Math.ceil(window / 2) && this.errorRate() >= errorRate;
    if (this.state === 'half_open' || this.#consecutiveFailures >= failureThreshold || overRate) {
      this.state = 'open';
      this.#openUntil = now + cooldownMs;
      this.#probing = false;
    }
  }

  /** A 429: this deployment (not the model) waits out its Retry-After; the breaker is untouched. */
  park(now: number, retryAfterMs: number): void {
    this.inFlight -= 1;
    this.rateLimited += 1;
    this.#parkedUntil = Math.max(this.#parkedUntil, now + retryAfterMs);
    // A probe that met a 429 says nothing of health: the next call after the park probes again.
    if (this.state === 'half_open') {
      this.state = 'open';
      this.#probing = false;
    }
  }

  /** The call ended without a verdict (the caller went away). */
  abandon(): void {
    this.inFlight -= 1;
    if (this.state === 'half_open') {
      this.state = 'open';
      this.#probing = false;
    }
  }

  #record(failed: boolean): void {
    this.#window.push(failed);
    if (this.#window.length > this.settings.window) this.#window.shift();
  }
}
