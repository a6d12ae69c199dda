import { mkdirSync } from 'node:fs';
import { PGlite, types } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { lockDataDir } from './data-dir-lock.ts';
import { VECTOR_SETTINGS } from './vector-session-settings.ts';
import type { Database, NotificationHandler, Queryable, QueryOptions, QueryResult } from './database.ts';
import { PglitePreparedStatements } from './pglite-prepared.ts';

const parsers = { [types.INT8]: (value: string) => Number(value) };

/**
 * PGlite's shared_buffers default (128 MB) is all touched WASM memory: about 150 MB of
 * the process's resident size for a page cache the OS keeps anyway (the data folder is
 * ordinary files). 32 MB holds a small store's hot pages; measured idle RSS of the
 * engine alone: 314 MB at the default, 205 MB at 32 MB, 168 MB at 16 MB.
 */
const SHARED_BUFFERS = '32MB';

/** Embedded PostgreSQL (WASM) in `dataDir`, or in memory for `memory://`. */
export async function openPgliteDatabase(dataDir: string): Promise<Database> {
  const inMemory = dataDir === 'memory://' || dataDir.startsWith('memory://');
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  // Before PGlite touches the files: a second process must get a sentence, not a WASM abort.
  const release = inMemory ? () => undefined : lockDataDir(dataDir);
  try {
    const db = await PGlite.create({
      dataDir: inMemory ? undefined : dataDir,
      extensions: { vector },
      parsers,
      postgresqlconf: `shared_buffers=${SHARED_BUFFERS}\n${VECTOR_SETTINGS.map(([name, value]) => `${name}=${value}`).join('\n')}`,
    });
    await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
    return new PgliteDatabase(db, release);
  } catch (error) {
    release();
    throw error;
  }
}

const toResult = <Row>(result: { rows: Row[]; affectedRows?: number }): QueryResult<Row> => ({
  rows: result.rows,
  rowCount: result.affectedRows ?? result.rows.length,
});

class PgliteDatabase implements Database {
  readonly engine = 'pglite' as const;
  readonly #db: PGlite;
  readonly #prepared: PglitePreparedStatements;
  readonly #release: () => void;

  constructor(db: PGlite, release: () => void) {
    this.#db = db;
    this.#prepared = new PglitePreparedStatements(db);
    this.#release = release;
  }

  async query<Row>(sql: string, params: readonly unknown[] = [], options?: QueryOptions): Promise<QueryResult<Row>> {
    if (options?.prepareAs) return toResult(await this.#prepared.query<Row>(options.prepareAs, sql, params));
    return toResult(await this.#db.query<Row>(sql, params as unknown[]));
  }

  async exec(sql: string): Promise<void> {
    await this.#db.exec(sql);
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    // PGlite serialises transactions itself: one session, one transaction at a time. A
    // statement in a transaction is not prepared (PglitePreparedStatements takes the
    // transaction lock this one holds): it runs as an ordinary query.
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
    try {
      if (!this.#db.closed) await this.#db.close();
    } finally {
      this.#release();
    }
  }
}
