import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';

const MIB = 1024 * 1024;

/**
 * The embedded engine's buffer pool when the operator sets none and the store holds no
 * large vector index. PGlite's own default (128 MB) is all touched WASM memory: about
 * 150 MB of the process's resident size for pages the OS caches anyway (the data folder is
 * ordinary files). 16 MB holds a small store's hot pages; measured idle RSS of the engine
 * alone: 314 MB at 128 MB, 205 MB at 32 MB, 168 MB at 16 MB.
 */
const DEFAULT_POOL_MB = 16;

/**
 * The page cache in front of a data folder's file reads (pglite-page-cache-fs.ts) beside
 * the default pool: it grows only as pages are read, so a server that searches no large
 * knowledge base stays as small as without it. 256 MB holds the pages the knowledge
 * bench's searches among 100k chunks of 256 dimensions read (its vector searches alone,
 * 180 MB).
 */
const DEFAULT_PAGE_CACHE_BYTES = 256 * MIB;

/** Vector indexes up to this size are served by the default pool and the page cache. */
const SMALL_VECTOR_INDEXES_BYTES = 8 * MIB;
/** Room beside the vector indexes for the rows a search returns and the store's other pages. */
const POOL_PER_INDEX_BYTE = 1.25;
const POOL_STEP_MB = 16;
/** The most JUNCTION_PGLITE_SHARED_BUFFERS accepts, too (storage-env.ts). */
const MAX_POOL_MB = 1024;
/** An automatic pool never takes more than this share of the machine's (or container's) memory. */
const MAX_SHARE_OF_MEMORY = 1 / 8;

/**
 * Where a data folder keeps the size of its vector indexes, as the engine last measured
 * it (30 s after opening and as it closes, pglite-database.ts): the pool has to be chosen
 * before the engine starts, when the catalog cannot be read yet. A hint only: a missing or
 * unreadable file means no large index, and a stale one is corrected by the next measurement.
 */
export const VECTOR_INDEX_HINT_FILE = 'junction-vector-indexes.json';

/**
 * The pool for a store whose HNSW indexes take `vectorIndexBytes`. A vector search walks
 * about 1,800 index pages at 100k chunks of 256 dimensions, nearly all missing from a 16 MB
 * pool; each then comes through the page cache (an 8 KB copy into the engine's memory and a
 * buffer to evict), which made PGlite's hybrid search p95 about a third slower than with
 * the index in the pool (two engines side by side: 20.5 against 15.8 ms; 14.3 with the
 * page cache still on). The pool is resident from the engine's start (it is written with
 * zeros), so it grows only for a store that has such an index: memory in proportion to
 * the knowledge it serves, as PostgreSQL's would be in the OS's page cache.
 */
export function poolForVectorIndexes(vectorIndexBytes: number, memoryBytes = machineMemory()): string {
  if (!(vectorIndexBytes > SMALL_VECTOR_INDEXES_BYTES)) return `${DEFAULT_POOL_MB}MB`;
  const wantedMb = DEFAULT_POOL_MB + (vectorIndexBytes * POOL_PER_INDEX_BYTE) / MIB;
  const capMb = Math.max(DEFAULT_POOL_MB, Math.min(MAX_POOL_MB, Math.floor((memoryBytes * MAX_SHARE_OF_MEMORY) / MIB / POOL_STEP_MB) * POOL_STEP_MB));
  return `${Math.min(capMb, Math.ceil(wantedMb / POOL_STEP_MB) * POOL_STEP_MB)}MB`;
}

export type StoreMemory = {
  /** shared_buffers, as PostgreSQL writes sizes. */
  sharedBuffers: string;
  /** The page cache's most, in bytes (0: none). */
  pageCacheBytes: number;
  /** The folder whose vector index hint sized the pool (and is kept up to date), when the operator set no pool. */
  hintFolder: string | undefined;
};

/**
 * The engine's pool and page cache for a store in `folder` (undefined: in memory). The
 * operator's settings win. Otherwise the pool follows the folder's vector index hint, and
 * beside a pool enlarged for vector indexes there is no page cache: that pool keeps the
 * pages the cache is for, and every page read into it would be kept twice. After the same
 * 600 hybrid searches among 100k chunks with a 192 MB pool, the process held 747 MB with
 * the cache and 494 MB without, at the same speed within the run's noise (two engines side
 * by side, earlier: p95 14.3 and 15.1 ms).
 */
export function storeMemory(folder: string | undefined, settings: { sharedBuffers?: string | undefined; pageCacheBytes?: number | undefined }): StoreMemory {
  if (settings.sharedBuffers !== undefined) {
    return { sharedBuffers: settings.sharedBuffers, pageCacheBytes: settings.pageCacheBytes ?? DEFAULT_PAGE_CACHE_BYTES, hintFolder: undefined };
  }
  const sharedBuffers = poolForVectorIndexes(folder === undefined ? 0 : readVectorIndexHint(folder));
  const enlarged = sharedBuffers !== `${DEFAULT_POOL_MB}MB`;
  return { sharedBuffers, pageCacheBytes: settings.pageCacheBytes ?? (enlarged ? 0 : DEFAULT_PAGE_CACHE_BYTES), hintFolder: folder };
}

/** The machine's memory, or the container's limit when one is set (Node gives 0 or a huge number without one). */
function machineMemory(): number {
  const limit = process.constrainedMemory();
  return limit > 0 ? Math.min(limit, totalmem()) : totalmem();
}

/** The vector indexes' size the folder's hint holds; 0 without a readable one. */
export function readVectorIndexHint(folder: string): number {
  try {
    const { vectorIndexBytes } = JSON.parse(readFileSync(join(folder, VECTOR_INDEX_HINT_FILE), 'utf8')) as { vectorIndexBytes?: unknown };
    return typeof vectorIndexBytes === 'number' && Number.isFinite(vectorIndexBytes) && vectorIndexBytes > 0 ? vectorIndexBytes : 0;
  } catch {
    return 0;
  }
}

/**
 * Keeps the measured size when it changes the pool the next start would choose (a rename,
 * so a reader never sees half a file; not synced, as losing it only costs one start with
 * the former pool).
 */
export function updateVectorIndexHint(folder: string, vectorIndexBytes: number): void {
  if (poolForVectorIndexes(vectorIndexBytes) === poolForVectorIndexes(readVectorIndexHint(folder))) return;
  const file = join(folder, VECTOR_INDEX_HINT_FILE);
  writeFileSync(`${file}.tmp`, `${JSON.stringify({ vectorIndexBytes })}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** Every HNSW index's size in the store (pgvector's indexes for knowledge chunks). */
export const VECTOR_INDEX_BYTES_SQL = `SELECT coalesce(sum(pg_relation_size(c.oid)), 0)::float8 AS bytes
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'hnsw'`;
