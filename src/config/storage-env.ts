import type { StorageConfig } from '../store/open-database.ts';
import { EnvConfigError } from './env-config-error.ts';

/**
 * The embedded engine's buffer pool, JUNCTION_PGLITE_SHARED_BUFFERS: a size in PostgreSQL's
 * units. Below the floor a pool saves a few MB of an engine that takes about 150 MB anyway,
 * while every statement reads more of its pages from the files; the ceiling leaves the
 * rest of PGlite's 2 GB of WASM memory to everything else the engine allocates.
 */
const SHARED_BUFFERS_PATTERN = /^([1-9][0-9]*)(kB|MB|GB)$/;
const UNIT_KB = { kB: 1, MB: 1024, GB: 1024 * 1024 } as const;
const MIN_SHARED_BUFFERS_KB = 8 * 1024;
const MAX_SHARED_BUFFERS_KB = 1024 * 1024;

/** A buffer pool size as PostgreSQL writes it ('16MB'), checked; undefined when unset. */
export function parsePgliteSharedBuffers(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const match = SHARED_BUFFERS_PATTERN.exec(value);
  const kilobytes = match ? Number(match[1]) * UNIT_KB[match[2] as keyof typeof UNIT_KB] : Number.NaN;
  if (!(kilobytes >= MIN_SHARED_BUFFERS_KB && kilobytes <= MAX_SHARED_BUFFERS_KB)) {
    throw new EnvConfigError(`invalid environment: JUNCTION_PGLITE_SHARED_BUFFERS: '${value}' is not a size from 8MB to 1GB (write it as 64MB, 512MB or 1GB)`);
  }
  return value;
}

/** JUNCTION_PGLITE_PAGE_CACHE: a size in MB or GB, or 0 for none; up to 8GB (the cache lives outside the engine's WASM memory). */
const PAGE_CACHE_PATTERN = /^(?:0|([1-9][0-9]*)(MB|GB))$/;
const MAX_PAGE_CACHE_BYTES = 8 * 1024 ** 3;

/** The embedded store's page cache in bytes (pglite-page-cache-fs.ts), checked; undefined when unset (its default). */
export function parsePglitePageCache(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = PAGE_CACHE_PATTERN.exec(value);
  const unit = match?.[2] === 'GB' ? 1024 ** 3 : 1024 ** 2;
  let bytes = Number.NaN;
  if (match) bytes = match[1] === undefined ? 0 : Number(match[1]) * unit;
  if (!(bytes >= 0 && bytes <= MAX_PAGE_CACHE_BYTES)) {
    throw new EnvConfigError(`invalid environment: JUNCTION_PGLITE_PAGE_CACHE: '${value}' is not 0 or a size up to 8GB (write it as 0, 256MB or 1GB)`);
  }
  return bytes;
}

/**
 * DATABASE_URL and JUNCTION_DATA_DIR, the two variables that choose the store (and the
 * embedded store's buffer pool and page cache), read apart from the rest of the environment
 * (src/config/env-config.ts, whose schema needs zod, about 0.1 s to load): `npm start`
 * begins opening the store before the server's other modules load. readEnvConfig reads
 * them through here too, so both agree.
 */
export function readStorageEnv(env: Readonly<Record<string, string | undefined>>): StorageConfig {
  const databaseUrl = env.DATABASE_URL;
  const dataDir = env.JUNCTION_DATA_DIR ?? './.junction';
  if (databaseUrl === '') throw new EnvConfigError('invalid environment: DATABASE_URL: is empty (unset it to use the embedded store)');
  if (dataDir === '') throw new EnvConfigError('invalid environment: JUNCTION_DATA_DIR: is empty (unset it for ./.junction)');
  const pgliteSharedBuffers = parsePgliteSharedBuffers(env.JUNCTION_PGLITE_SHARED_BUFFERS);
  const pglitePageCacheBytes = parsePglitePageCache(env.JUNCTION_PGLITE_PAGE_CACHE);
  return { databaseUrl, dataDir, pgliteSharedBuffers, pglitePageCacheBytes };
}
