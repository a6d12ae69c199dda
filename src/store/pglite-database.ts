import { mkdirSync } from 'node:fs';
import { PGlite, types } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { VECTOR_SETTINGS } from './vector-session-settings.ts';
import type { Database, NotificationHandler, Queryable, QueryOptions, QueryResult } from './database.ts';
import { DEFAULT_CHECKPOINT_POLICY, EmbeddedCheckpoints, type CheckpointPolicy } from './embedded-checkpoints.ts';
import { PglitePreparedStatements } from './pglite-prepared.ts';
import { binaryParameterOptions } from './pglite-binary-parameters.ts';
import { applyEngineWasmTiering } from './wasm-tiering.ts';
import { PageCache } from './page-cache.ts';
import { storeMemory, updateVectorIndexHint, VECTOR_INDEX_BYTES_SQL } from './pglite-store-memory.ts';
import { StoreNodeFS } from './pglite-store-fs.ts';
import { DATA_DIR_LOCK_FILE } from './data-dir-lock.ts';
import type { StoreDurabilityCounters } from './store-durability-counters.ts';
import { syncFolderTree } from './sync-folder-tree.ts';
import { PRIVATE_FOLDER_MODE, tightenStoreFolder } from './store-folder-modes.ts';
import { DEFAULT_STORE_TEMPLATE_DIR, discardStoreTemplate, emptyNewStoreFolder, isNewStore, readStoreTemplate, storeTemplateFile, writeStoreTemplate } from './pglite-store-template.ts';

const parsers = { [types.INT8]: (value: string) => Number(value) };

export type PgliteEngineSettings = {
  /** shared_buffers, as PostgreSQL writes sizes; when unset, chosen from the store's vector indexes (pglite-store-memory.ts). */
  sharedBuffers?: string | undefined;
  /** The page cache's most, in bytes (0: none); when unset, chosen with the pool (pglite-store-memory.ts). */
  pageCacheBytes?: number | undefined;
  /** When the engine checkpoints (embedded-checkpoints.ts); DEFAULT_CHECKPOINT_POLICY when unset. */
  checkpoints?: CheckpointPolicy | undefined;
  /** How long after opening the engine measures its vector indexes for the next start's pool; VECTOR_INDEX_CHECK_MS when unset. */
  vectorIndexCheckMs?: number | undefined;
};

/**
 * The measurement waits this long after the engine opens, off the start's path: on a start
 * its statement found the catalog cold and took 34 ms (2 ms once warm). Closing measures
 * again; this one is for a server that never closes cleanly.
 */
const VECTOR_INDEX_CHECK_MS = 30_000;

/**
 * initdb of PostgreSQL 18 (PGlite's engine) turns data checksums on, and then every page
 * read into shared_buffers is checksummed in WASM. With 16 MB of buffers, a vector search
 * over 100k chunks reads about 1,200 pages, and the checksums alone made hybrid knowledge
 * search about 2.5 ms slower (p50 14.3 against 11.9 ms on a data folder; bench p95 16.4
 * against 13.3). Checksums detect storage corruption, and PostgreSQL shipped without them
 * by default until 18; a new store is made without them. A store made earlier keeps them
 * (the setting is fixed at initdb).
 */
const INITDB_OPTIONS = ['--no-data-checksums'];

/**
 * Embedded PostgreSQL (WASM) in `dataDir`, or in memory for `memory://`, on the calling
 * thread. The server runs it on a thread of its own (pglite-worker.ts); the caller has
 * created and locked the folder. A new store starts from the kept empty one in
 * `templateDir` when there is one (pglite-store-template.ts).
 */
export async function openPgliteEngine(dataDir: string, settings: PgliteEngineSettings = {}, templateDir = DEFAULT_STORE_TEMPLATE_DIR, counters?: StoreDurabilityCounters): Promise<Database> {
  applyEngineWasmTiering();
  const folder = dataDir.startsWith('memory://') ? undefined : dataDir;
  if (folder !== undefined) {
    mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
    tightenStoreFolder(folder);
  }
  const newStore = isNewStore(folder);
  const templateFile = newStore ? storeTemplateFile(templateDir, INITDB_OPTIONS) : undefined;
  const memory = storeMemory(folder, settings);
  const db = await createEngine(engineOptions(memory.sharedBuffers, folder), storeFiles(folder, memory.pageCacheBytes, counters), templateFile);
  // A new store's files were written by unpacking the template or by initdb, neither of which fsyncs.
  if (newStore && folder !== undefined) syncFolderTree(folder);
  // Read first: on a store that has it (every start but the first), the read took the engine
  // 8-9 ms where `CREATE EXTENSION IF NOT EXISTS` took 32-42 (the first statement of a start).
  const installed = await db.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'");
  if (installed.rows.length === 0) await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  const hint = memory.hintFolder === undefined ? undefined : { folder: memory.hintFolder, checkMs: settings.vectorIndexCheckMs ?? VECTOR_INDEX_CHECK_MS };
  return new PgliteDatabase(db, settings.checkpoints ?? DEFAULT_CHECKPOINT_POLICY, counters, hint);
}

/**
 * PGlite starts its engine with fsync off (`-F` among its default start parameters), so a
 * commit was only in the OS's page cache when it was answered: safe against the process
 * dying, not against the machine losing power. A store in a folder starts without `-F`, and
 * with WAL flushed by fsync: Emscripten's fdatasync, PostgreSQL's default way on Linux, does
 * nothing, while its fsync reaches the file layer (nodefs-fsync.ts makes that a real one).
 * About 0.1 ms a commit on this project's machines. A store in memory has no disk to sync
 * to and keeps PGlite's defaults.
 */
const DURABLE_START_PARAMS = [...PGlite.defaultStartParams.filter((param) => param !== '-F'), '-c', 'wal_sync_method=fsync'];

// PGlite writes postgresqlconf over the folder's postgresql.conf at every start: a changed pool size takes effect at the next.
const engineOptions = (sharedBuffers: string, folder: string | undefined) => ({
  extensions: { vector },
  parsers,
  initDbStartParams: INITDB_OPTIONS,
  ...(folder !== undefined && { startParams: DURABLE_START_PARAMS }),
  postgresqlconf: `shared_buffers=${sharedBuffers}\n${VECTOR_SETTINGS.map(([name, value]) => `${name}=${value}`).join('\n')}`,
});

type EngineOptions = ReturnType<typeof engineOptions>;

/** Where the engine keeps its files, made afresh for each engine: memory, or the folder through StoreNodeFS (its page cache unless it is off). */
type StoreFiles = { folder: string | undefined; options(): { fs?: StoreNodeFS } };

function storeFiles(folder: string | undefined, cacheBytes: number, counters: StoreDurabilityCounters | undefined): StoreFiles {
  if (folder === undefined) return { folder, options: () => ({}) };
  return { folder, options: () => ({ fs: new StoreNodeFS(folder, cacheBytes === 0 ? undefined : new PageCache(cacheBytes), counters) }) };
}

/** The engine on `store`; a new store is loaded from the template when one was kept, else made by initdb and kept. */
async function createEngine(options: EngineOptions, store: StoreFiles, templateFile: string | undefined): Promise<PGlite> {
  const folder = store.folder;
  const template = templateFile === undefined ? undefined : await readStoreTemplate(templateFile);
  if (templateFile !== undefined && template !== undefined) {
    try {
      return await PGlite.create({ ...options, ...store.options(), loadDataDir: template });
    } catch {
      // A template that would not load is discarded, and this store is made by initdb instead.
      await discardStoreTemplate(templateFile);
      if (folder !== undefined) emptyNewStoreFolder(folder, DATA_DIR_LOCK_FILE);
    }
  }
  const db = await PGlite.create({ ...options, ...store.options() });
  if (templateFile !== undefined) await writeStoreTemplate(db, templateFile);
  return db;
}

/**
 * Measures the store's vector indexes and keeps the size in its folder for the next start's
 * pool. A failure (a full disk, say, or an engine closed meanwhile) neither stops the store
 * nor its close: the hint only sizes the pool, and the next run measures again.
 */
async function recordVectorIndexes(db: PGlite, folder: string): Promise<void> {
  try {
    const { rows } = await db.query<{ bytes: number }>(VECTOR_INDEX_BYTES_SQL);
    updateVectorIndexHint(folder, rows[0]?.bytes ?? 0);
  } catch {
    // Kept as it was; see above.
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
  readonly #checkpoints: EmbeddedCheckpoints;
  /** The folder whose vector index hint this engine keeps, when its pool is chosen from it. */
  readonly #poolHintFolder: string | undefined;
  readonly #poolHintCheck: NodeJS.Timeout | undefined;

  constructor(db: PGlite, checkpoints: CheckpointPolicy, counters: StoreDurabilityCounters | undefined, hint: { folder: string; checkMs: number } | undefined) {
    this.#db = db;
    this.#poolHintFolder = hint?.folder;
    // Unreferenced: a pending measurement never keeps the process alive.
    this.#poolHintCheck = hint && setTimeout(() => void recordVectorIndexes(db, hint.folder), hint.checkMs).unref();
    this.#prepared = new PglitePreparedStatements(db);
    this.#checkpoints = new EmbeddedCheckpoints(this, checkpoints, counters);
  }

  async query<Row>(sql: string, params: readonly unknown[] = [], options?: QueryOptions): Promise<QueryResult<Row>> {
    if (options?.prepareAs) return toResult(await this.#prepared.query<Row>(options.prepareAs, sql, params));
    return toResult(await this.#db.query<Row>(sql, params as unknown[], binaryParameterOptions(this.#db, params)));
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
        query: async <Row>(sql: string, params: readonly unknown[] = []) => toResult(await tx.query<Row>(sql, params as unknown[], binaryParameterOptions(this.#db, params))),
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
    // PGlite checkpoints as it closes: the checkpointer's own ends first.
    await this.#checkpoints.stop();
    clearTimeout(this.#poolHintCheck);
    if (this.#db.closed) return;
    // Knowledge indexed while this engine ran gets its pool at the next start.
    if (this.#poolHintFolder !== undefined) await recordVectorIndexes(this.#db, this.#poolHintFolder);
    await this.#db.close();
  }
}
