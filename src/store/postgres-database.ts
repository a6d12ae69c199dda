import pg from 'pg';
import type { Database, NotificationHandler, Queryable, QueryResult } from './database.ts';

// int8 → number on this engine as on PGlite (money is integer micro-USD, well below 2^53).
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/** PostgreSQL (with pgvector) through a `pg` pool. */
export async function openPostgresDatabase(connectionString: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString, max: poolSize });
  const client = await pool.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
  } finally {
    client.release();
  }
  return new PostgresDatabase(pool, connectionString);
}

const toResult = <Row>(result: pg.QueryResult): QueryResult<Row> => ({
  rows: result.rows as Row[],
  rowCount: result.rowCount ?? result.rows.length,
});

class PostgresDatabase implements Database {
  readonly engine = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #connectionString: string;
  #listener: pg.Client | undefined;
  readonly #handlers = new Map<string, Set<NotificationHandler>>();

  constructor(pool: pg.Pool, connectionString: string) {
    this.#pool = pool;
    this.#connectionString = connectionString;
  }

  async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
    return toResult<Row>(await this.#pool.query(sql, params as unknown[]));
  }

  async exec(sql: string): Promise<void> {
    await this.#pool.query(sql);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work({
        query: async <Row>(sql: string, params: readonly unknown[] = []) =>
          toResult<Row>(await client.query(sql, params as unknown[])),
        exec: async (sql: string) => {
          await client.query(sql);
        },
      });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
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
    const client = new pg.Client({ connectionString: this.#connectionString });
    await client.connect();
    client.on('notification', (message) => {
      for (const handler of this.#handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    this.#listener = client;
    return client;
  }

  async close(): Promise<void> {
    await this.#listener?.end().catch(() => undefined);
    this.#listener = undefined;
    await this.#pool.end();
  }
}
