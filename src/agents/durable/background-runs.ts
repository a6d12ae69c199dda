import type { Logger } from 'pino';
import type { Database } from '../../store/database.ts';
import { claimExpiredRuns, NOTIFY_CANCEL, releaseLeases, type RunRow, renewLeases } from './run-repository.ts';

/** Why a background run's signal fired. */
export type StopReason = 'cancelled' | 'lease-lost' | 'shutdown';

export type BackgroundRunsOptions = {
  db: Database;
  /** This process's id in the process registry: the lease holder. */
  holderId: string;
  /** A lease lasts this long; it is renewed every third of it. */
  leaseSeconds: number;
  /** Runs one run to its end (or until `signal` fires); `resumed` when another process started it. */
  execute(row: RunRow, signal: AbortSignal, resumed: boolean): Promise<void>;
  logger: Logger;
  /** How many runs this process takes over at once (its own submissions are not limited). */
  maxClaimed?: number;
};

/**
 * The background runs this process holds. Every lease/3 it renews their leases (a run
 * whose lease it lost, or that was cancelled, is stopped), and takes over runs whose
 * holder stopped renewing — a process that died — to resume them from their last
 * checkpoint. At shutdown it stops its runs without finishing them: their leases run
 * out and a live process resumes them.
 */
export class BackgroundRuns {
  readonly #options: BackgroundRunsOptions;
  readonly #active = new Map<string, AbortController>();
  #timer: NodeJS.Timeout | undefined;
  #unlisten: (() => Promise<void>) | undefined;
  #ticking: Promise<void> | undefined;
  #stopped = false;

  constructor(options: BackgroundRunsOptions) {
    this.#options = options;
  }

  get holderId(): string {
    return this.#options.holderId;
  }

  get leaseSeconds(): number {
    return this.#options.leaseSeconds;
  }

  async start(): Promise<void> {
    this.#unlisten = await this.#options.db.listen(NOTIFY_CANCEL, (runId) => this.#active.get(runId)?.abort('cancelled' satisfies StopReason));
    this.#timer = setInterval(() => void this.tick(), (this.#options.leaseSeconds * 1000) / 3);
    this.#timer.unref();
    void this.tick();
  }

  /** Runs a run this process just accepted (it holds the lease from the insert). */
  launch(row: RunRow, resumed = false): void {
    if (this.#stopped || this.#active.has(row.id)) return;
    const controller = new AbortController();
    this.#active.set(row.id, controller);
    void this.#options
      .execute(row, controller.signal, resumed)
      .catch((error: unknown) => this.#options.logger.error({ err: error, runId: row.id }, 'background run failed unexpectedly'))
      .finally(() => this.#active.delete(row.id));
  }

  /** Renew, stop what was cancelled or lost, take over what was abandoned. One at a time. */
  tick(): Promise<void> {
    this.#ticking ??= this.#tick()
      .catch((error: unknown) => this.#options.logger.warn({ err: error }, 'background run lease renewal failed'))
      .finally(() => (this.#ticking = undefined));
    return this.#ticking;
  }

  async #tick(): Promise<void> {
    const { db, holderId, leaseSeconds } = this.#options;
    const held = [...this.#active.keys()];
    const renewed = new Map((await renewLeases(db, holderId, held, leaseSeconds)).map((row) => [row.id, row.cancel_requested]));
    for (const id of held) {
      const controller = this.#active.get(id);
      if (!renewed.has(id)) controller?.abort('lease-lost' satisfies StopReason);
      else if (renewed.get(id)) controller?.abort('cancelled' satisfies StopReason);
    }
    if (this.#stopped) return;
    const room = (this.#options.maxClaimed ?? 8) - this.#active.size;
    if (room <= 0) return;
    for (const row of await claimExpiredRuns(db, holderId, leaseSeconds, room)) {
      this.#options.logger.info({ runId: row.id, attempts: row.attempts }, 'resuming a background run whose process stopped');
      this.launch(row, true);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#unlisten?.().catch(() => undefined);
    for (const controller of this.#active.values()) controller.abort('shutdown' satisfies StopReason);
    await this.#ticking;
    // Hand the runs over now rather than when their leases would have run out.
    await releaseLeases(this.#options.db, this.#options.holderId).catch(() => undefined);
    // Runs stop at their next await; give them a moment so no write lands after the store closes.
    const deadline = Date.now() + 2_000;
    while (this.#active.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
