import type { Database, NotificationHandler, Queryable, QueryOptions, QueryResult } from './database.ts';
import { type ReportingReads, reportingReadsOf } from './reporting-reads.ts';
import type { StoreDurabilityCounts } from './store-durability-counters.ts';

type PoolStats = { total: number; idle: number; waiting: number };

/**
 * A store still opening, usable at once: every call waits until the store is open and
 * `prepare` (the migrations) has run on it, then goes to the store (directly, once it is
 * ready). The services and the HTTP app are built on it while the embedded engine starts
 * on its thread (about a second), instead of after. A failed open or preparation fails
 * every call with its own error; closing waits for both and closes what opened.
 */
export class OpeningDatabase implements Database {
  readonly engine: Database['engine'];
  readonly poolStats?: () => PoolStats;
  readonly engineCpuSeconds?: () => number | undefined;
  readonly durabilityCounts?: () => StoreDurabilityCounts | undefined;
  readonly #opening: Promise<Database>;
  readonly #ready: Promise<Database>;
  #db: Database | undefined;
  /** The opened store's reporting reads, once it is ready. */
  readonly reportingReads: ReportingReads = {
    session: (work) => this.#ready.then((db) => reportingReadsOf(db).session(work)),
    stats: () => (this.#db ? reportingReadsOf(this.#db).stats() : { max: 0, inUse: 0, waiting: 0, busyRefusals: 0 }),
  };

  constructor(engine: Database['engine'], opening: Promise<Database>, prepare: (db: Database) => Promise<unknown>) {
    this.engine = engine;
    this.#opening = opening;
    this.#ready = opening.then(async (db) => {
      await prepare(db);
      this.#db = db;
      return db;
    });
    this.#ready.catch(() => undefined); // each caller hears of a failure through its own call
    // Only PostgreSQL has a pool: the metrics register its gauge when the method exists.
    if (engine === 'postgres') this.poolStats = () => this.#db?.poolStats?.() ?? { total: 0, idle: 0, waiting: 0 };
    // Only the embedded engine runs in this process: the metrics count its thread's CPU when the method exists.
    else {
      this.engineCpuSeconds = () => this.#db?.engineCpuSeconds?.();
      this.durabilityCounts = () => this.#db?.durabilityCounts?.();
    }
  }

  /** Resolves once the store is open and prepared; rejects with the reason it is not. */
  async ready(): Promise<void> {
    await this.#ready;
  }

  query<Row>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<Row>> {
    const db = this.#db;
    return db ? db.query<Row>(sql, params, options) : this.#ready.then((ready) => ready.query<Row>(sql, params, options));
  }

  exec(sql: string): Promise<void> {
    const db = this.#db;
    return db ? db.exec(sql) : this.#ready.then((ready) => ready.exec(sql));
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const db = this.#db;
    return db ? db.transaction(work) : this.#ready.then((ready) => ready.transaction(work));
  }

  listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    const db = this.#db;
    return db ? db.listen(channel, handler) : this.#ready.then((ready) => ready.listen(channel, handler));
  }

  /** Closes the store once its open and preparation have ended, either way (never halfway through a migration). */
  async close(): Promise<void> {
    await this.#ready.catch(() => undefined);
    const db = await this.#opening.catch(() => undefined);
    await db?.close();
  }
}
