import pg from 'pg';
import { type Database, LOST_NOTIFICATIONS, type NotificationHandler, type Queryable, type QueryOptions, type QueryResult } from './database.ts';
import { DatabaseUnavailableError, isConnectionError } from './connection-errors.ts';
import { READ_WAIT_MS, type ReportingReads, type ReportingReadStats } from './reporting-reads.ts';
import { SCHEMA_LOCK_SQL } from './schema-lock.ts';
import { type ServerLiveness, StatementWatchdog } from './statement-watchdog.ts';
import { VECTOR_SESSION_SETTINGS } from './vector-session-settings.ts';

// int8 → number on this engine as on PGlite (money is integer micro-USD, well below 2^53).
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/** How long a statement may wait for a connection (a free one in the pool, or a new one) before it fails as an outage (a 503). */
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * A statement running this long has the server probed, with this timeout: one on a server
 * that stopped answering fails within about 6 s (statement-watchdog.ts).
 */
const STALL_MS = 3_000;
const PROBE_TIMEOUT_MS = 2_500;
/** Connections for console and reporting reads, beside the pool's: a small share they cannot exceed. */
const READ_POOL_SIZE = 3;
/** A console or reporting read (a page of rows, a rollup) is short: one running longer is cancelled. */
const READ_STATEMENT_TIMEOUT_MS = 15_000;

/** PostgreSQL (with pgvector) through a `pg` pool. */
export async function openPostgresDatabase(connectionString: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // A server that vanished without closing its sockets is noticed by the kernel instead of never.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // Awaited before the pool hands the new connection out.
    onConnect: async (client) => {
      await client.query(VECTOR_SESSION_SETTINGS);
    },
  });
  // An idle pooled connection the server closed (restart, admin kill) is replaced on
  // next use; without this listener its error event would crash the process.
  pool.on('error', () => undefined);
  await ensureVectorExtension(pool, poolSize);
  return new PostgresDatabase(pool, poolSize, connectionString, openReadPool(connectionString));
}

/**
 * The reporting reads' own pool: its connections cancel long statements, and a full pool
 * refuses after READ_WAIT_MS. They start with the main pool's session settings (JIT off: a
 * misjudged Overview join spent seconds compiling a statement that runs in milliseconds).
 */
function openReadPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: READ_POOL_SIZE,
    connectionTimeoutMillis: READ_WAIT_MS,
    statement_timeout: READ_STATEMENT_TIMEOUT_MS,
    onConnect: async (client) => {
      await client.query(VECTOR_SESSION_SETTINGS);
    },
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  pool.on('error', () => undefined);
  return pool;
}

/**
 * A connection from the pool, or a DatabaseUnavailableError: failing to get one is an outage
 * whatever the server said. `busy` when every connection stayed in use for the whole connect
 * timeout: pg-pool's wait gives no code, so the time waited, the error's lack of any code or
 * cause, and a pool still full tell it apart from a new connection that failed (which
 * carries the server's or the socket's error, or a timeout's cause).
 */
async function connect(pool: pg.Pool, poolSize: number, timeoutMs = CONNECT_TIMEOUT_MS): Promise<pg.PoolClient> {
  const startedAt = performance.now();
  try {
    return listenedTo(await pool.connect());
  } catch (error) {
    const waitedWholeTimeout = performance.now() - startedAt >= timeoutMs - 50;
    const fromConnection = (error as { code?: unknown }).code !== undefined || (error as { cause?: unknown }).cause !== undefined;
    const busy = waitedWholeTimeout && !fromConnection && pool.totalCount >= poolSize;
    throw new DatabaseUnavailableError(busy ? 'busy' : 'unreachable', error);
  }
}

/** Clients that carry their own 'error' listener (added once per client, not per checkout). */
const listened = new WeakSet<pg.PoolClient>();

/**
 * pg-pool takes its listener off a client while it is checked out, and a server that goes
 * away emits 'error' on the client: without a listener of ours that is an uncaught exception
 * that ends the process. The statement under way fails on its own, and release drops the
 * connection.
 */
function listenedTo(client: pg.PoolClient): pg.PoolClient {
  if (!listened.has(client)) {
    listened.add(client);
    client.on('error', () => undefined);
  }
  return client;
}

/** Creates pgvector once, however many processes start together on an empty database. */
async function ensureVectorExtension(pool: pg.Pool, poolSize: number): Promise<void> {
  const client = await connect(pool, poolSize);
  try {
    const installed = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'");
    if (installed.rowCount) return;
    await client.query('BEGIN');
    try {
      await client.query(SCHEMA_LOCK_SQL);
      await client.query('CREATE EXTENSION IF NOT EXISTS vector');
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  } finally {
    client.release();
  }
}

/** Whether the server answers a new connection at all: a refusal (too many connections, starting up) is an answer. */
async function probeServer(connectionString: string): Promise<ServerLiveness> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: PROBE_TIMEOUT_MS, query_timeout: PROBE_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return 'alive';
  } catch (error) {
    return error instanceof pg.DatabaseError ? 'alive' : 'silent';
  } finally {
    // Not awaited: on a silent server the goodbye is never acknowledged.
    client.end().catch(() => undefined);
  }
}

/** node-postgres prepares a named statement once per connection and reuses it by name. */
const queryConfig = (sql: string, params: readonly unknown[], options: QueryOptions | undefined): pg.QueryConfig => ({
  text: sql,
  values: params as unknown[],
  ...(options?.prepareAs ? { name: options.prepareAs } : {}),
});

/** pg answers a text of several statements (exec, migrations) with one result each: the last one stands for them. */
const toResult = <Row>(answer: pg.QueryResult | pg.QueryResult[]): QueryResult<Row> => {
  const result = Array.isArray(answer) ? (answer.at(-1) ?? { rows: [], rowCount: 0 }) : answer;
  return { rows: result.rows as Row[], rowCount: result.rowCount ?? result.rows.length };
};

class PostgresDatabase implements Database {
  readonly engine = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #poolSize: number;
  readonly #connectionString: string;
  readonly #watchdog: StatementWatchdog;
  #listener: pg.Client | undefined;
  #closed = false;
  readonly #handlers = new Map<string, Set<NotificationHandler>>();
  readonly #readPool: pg.Pool;
  readonly reportingReads: ReportingReads;

  constructor(pool: pg.Pool, poolSize: number, connectionString: string, readPool: pg.Pool) {
    this.#pool = pool;
    this.#poolSize = poolSize;
    this.#connectionString = connectionString;
    this.#watchdog = new StatementWatchdog({ stallMs: STALL_MS, checkEveryMs: 250, probe: () => probeServer(connectionString) });
    this.#readPool = readPool;
    this.reportingReads = new PooledReads(readPool, this.#watchdog);
  }

  async query<Row>(sql: string, params: readonly unknown[] = [], options?: QueryOptions): Promise<QueryResult<Row>> {
    const client = await connect(this.#pool, this.#poolSize);
    try {
      const result = toResult<Row>(await this.#watchdog.watch(client.query(queryConfig(sql, params, options))));
      client.release();
      return result;
    } catch (error) {
      // A connection that failed is dropped; one that refused a statement is still good.
      client.release(isConnectionError(error) ? (error as Error) : undefined);
      throw error;
    }
  }

  poolStats(): { total: number; idle: number; waiting: number } {
    return { total: this.#pool.totalCount, idle: this.#pool.idleCount, waiting: this.#pool.waitingCount };
  }

  async exec(sql: string): Promise<void> {
    await this.query(sql);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await connect(this.#pool, this.#poolSize);
    const run = <R extends pg.QueryResultRow>(config: pg.QueryConfig | string) => this.#watchdog.watch(client.query<R>(config));
    let lost: Error | undefined;
    try {
      await run('BEGIN');
      const result = await work({
        query: async <Row>(sql: string, params: readonly unknown[] = [], options?: QueryOptions) => toResult<Row>(await run(queryConfig(sql, params, options))),
        exec: async (sql: string) => {
          await run(sql);
        },
      });
      await run('COMMIT');
      return result;
    } catch (error) {
      // A connection that failed (or hangs) takes its transaction with it: no ROLLBACK to wait for.
      if (isConnectionError(error)) lost = error as Error;
      else await run('ROLLBACK').catch((rollbackError: unknown) => (lost = rollbackError as Error));
      throw error;
    } finally {
      client.release(lost);
    }
  }

  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    const listener = await this.#listenerClient();
    let handlers = this.#handlers.get(channel);
    if (!handlers) {
      handlers = new Set();
      this.#handlers.set(channel, handlers);
      await listener.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    }
    handlers.add(handler);
    return async () => {
      handlers.delete(handler);
    };
  }

  /** One dedicated connection carries every LISTEN of this process. */
  async #listenerClient(): Promise<pg.Client> {
    if (this.#listener) return this.#listener;
    const client = new pg.Client({ connectionString: this.#connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
    client.on('notification', (message) => {
      for (const handler of this.#handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    client.on('error', () => this.#reconnectListener(client));
    // As for pooled connections: failing to connect is an outage, whatever the server said.
    await client.connect().catch((error: unknown) => {
      throw new DatabaseUnavailableError('unreachable', error);
    });
    this.#listener = client;
    return client;
  }

  /**
   * Notifications sent while the LISTEN connection was down are lost, so after
   * reconnecting every handler hears LOST_NOTIFICATIONS and must assume anything changed.
   */
  #reconnectListener(dead: pg.Client): void {
    if (this.#listener !== dead || this.#closed) return;
    this.#listener = undefined;
    dead.end().catch(() => undefined);
    const retry = async (): Promise<void> => {
      if (this.#closed) return;
      try {
        const client = await this.#listenerClient();
        for (const channel of this.#handlers.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        for (const handlers of this.#handlers.values()) for (const handler of handlers) handler(LOST_NOTIFICATIONS);
      } catch {
        this.#listener = undefined;
        setTimeout(() => void retry(), 1_000).unref();
      }
    };
    void retry();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#watchdog.stop();
    await this.#listener?.end().catch(() => undefined);
    this.#listener = undefined;
    await Promise.all([this.#pool.end(), this.#readPool.end()]);
  }
}

/** Reporting reads on the read pool: one connection per session, an outage when none is free in time. */
class PooledReads implements ReportingReads {
  readonly #pool: pg.Pool;
  readonly #watchdog: StatementWatchdog;
  #busyRefusals = 0;

  constructor(pool: pg.Pool, watchdog: StatementWatchdog) {
    this.#pool = pool;
    this.#watchdog = watchdog;
  }

  async session<T>(work: (reads: Queryable) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await connect(this.#pool, READ_POOL_SIZE, READ_WAIT_MS);
    } catch (error) {
      if (error instanceof DatabaseUnavailableError && error.outage === 'busy') this.#busyRefusals += 1;
      throw error;
    }
    let lost: Error | undefined;
    const run = async <Row>(sql: string, params: readonly unknown[] = [], options?: QueryOptions): Promise<QueryResult<Row>> => {
      try {
        return toResult<Row>(await this.#watchdog.watch(client.query(queryConfig(sql, params, options))));
      } catch (error) {
        if (isConnectionError(error)) lost = error as Error;
        throw error;
      }
    };
    try {
      return await work({ query: run, exec: async (sql) => void (await run(sql)) });
    } finally {
      // A connection that failed is dropped; one that refused a statement is still good.
      client.release(lost);
    }
  }

  stats(): ReportingReadStats {
    return { max: READ_POOL_SIZE, inUse: this.#pool.totalCount - this.#pool.idleCount, waiting: this.#pool.waitingCount, busyRefusals: this.#busyRefusals };
  }
}
