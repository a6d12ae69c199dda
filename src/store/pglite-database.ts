import { mkdirSync } from 'node:fs';
import { PGlite, types } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { Database, NotificationHandler, Queryable, QueryResult } from './database.ts';

const parsers = { [types.INT8]: (value: string) => Number(value) };

/** Embedded PostgreSQL (WASM) in `dataDir`, or in memory for `memory://`. */
export async function openPgliteDatabase(dataDir: string): Promise<Database> {
  const inMemory = dataDir === 'memory://' || dataDir.startsWith('memory://');
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create({ dataDir: inMemory ? undefined : dataDir, extensions: { vector }, parsers });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  return new PgliteDatabase(db);
}

const toResult = <Row>(result: { rows: Row[]; affectedRows?: number }): QueryResult<Row> => ({
  rows: result.rows,
  rowCount: result.affectedRows ?? result.rows.length,
});

class PgliteDatabase implements Database {
  readonly engine = 'pglite' as const;
  readonly #db: PGlite;

  constructor(db: PGlite) {
    this.#db = db;
  }

  async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
    return toResult(await this.#db.query<Row>(sql, params as unknown[]));
  }

  async exec(sql: string): Promise<void> {
    await this.#db.exec(sql);
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    // PGlite serialises transactions itself: one session, one transaction at a time.
    return this.#db.transaction(async (tx) =>
      work({
        query: async <Row>(sql: string, params: readonly unknown[] = []) =>
          toResult(await tx.query<Row>(sql, params as unknown[])),
        exec: async (sql: string) => {
          await tx.exec(sql);
        },
      }),
    );
  }

  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    return this.#db.listen(channel, handler);
  }

  async close(): Promise<void> {
    if (!this.#db.closed) await this.#db.close();
  }
}
