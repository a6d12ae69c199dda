import { DatabaseUnavailableError } from './connection-errors.ts';

/** What a probe of the server found: it answered (even with a refusal), or it did not within its timeout. */
export type ServerLiveness = 'alive' | 'silent';

export type StatementWatchdogOptions = {
  /** A statement running this long has the server probed. */
  stallMs: number;
  /** How often statements in flight are looked at. */
  checkEveryMs: number;
  /** Asks the server something on a new connection; bounded by its own timeout. */
  probe: () => Promise<ServerLiveness>;
};

type Watched = { startedAt: number; abandon: (error: Error) => void };

/**
 * Bounds statements on a server that stopped answering (a hung host, a network that drops
 * packets): a statement still running after `stallMs` has the server probed on a new
 * connection, and if the probe gets no answer either, every stalled statement fails as an
 * outage (a 503) instead of holding its request for as long as TCP takes to give up. A
 * statement that is merely long (a migration, an index build) runs on: the server answers
 * the probe. One probe at a time, and only while some statement has stalled.
 */
export class StatementWatchdog {
  readonly #options: StatementWatchdogOptions;
  readonly #inFlight = new Set<Watched>();
  #timer: NodeJS.Timeout | undefined;
  #probing = false;

  constructor(options: StatementWatchdogOptions) {
    this.#options = options;
  }

  /**
   * `work`, or a DatabaseUnavailableError once the server is found silent while it runs
   * (the caller then drops the connection the statement is stuck on, as for any outage).
   */
  watch<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const watched: Watched = {
        startedAt: performance.now(),
        abandon: (error) => {
          this.#inFlight.delete(watched);
          reject(error);
        },
      };
      this.#inFlight.add(watched);
      this.#timer ??= setInterval(() => this.#check(), this.#options.checkEveryMs).unref();
      work.then(
        (value) => this.#settle(watched, () => resolve(value)),
        (error: unknown) => this.#settle(watched, () => reject(error)),
      );
    });
  }

  /** Stops looking until the next statement (none in flight, or the store closes); statements in flight finish as they will. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #settle(watched: Watched, finish: () => void): void {
    // Already failed as an outage: the statement's late end changes nothing.
    if (!this.#inFlight.delete(watched)) return;
    finish();
    if (this.#inFlight.size === 0) this.stop();
  }

  #check(): void {
    if (this.#probing) return;
    const stalledBefore = performance.now() - this.#options.stallMs;
    if (![...this.#inFlight].some((watched) => watched.startedAt <= stalledBefore)) return;
    this.#probing = true;
    this.#options
      .probe()
      .catch((): ServerLiveness => 'silent')
      .then((liveness) => {
        if (liveness === 'alive') return;
        const error = new DatabaseUnavailableError('unreachable', new Error('the database server stopped answering'));
        for (const watched of [...this.#inFlight]) if (watched.startedAt <= stalledBefore) watched.abandon(error);
      })
      .finally(() => {
        this.#probing = false;
      });
  }
}
