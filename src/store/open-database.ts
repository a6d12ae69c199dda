import type { Database } from './database.ts';

export type StorageConfig = {
  databaseUrl?: string | undefined;
  dataDir: string;
  /** The embedded engine's buffer pool, as PostgreSQL writes sizes ('64MB'); its default when unset. */
  pgliteSharedBuffers?: string | undefined;
  /** The embedded store's page cache in bytes (0: none); its default when unset. */
  pglitePageCacheBytes?: number | undefined;
};

/**
 * `DATABASE_URL` wins; otherwise the embedded engine in `JUNCTION_DATA_DIR`. Each engine's
 * module is imported only when chosen: a PostgreSQL start never loads PGlite (nor an
 * embedded one the pg client).
 */
export async function openDatabase(config: StorageConfig): Promise<Database> {
  if (config.databaseUrl) {
    const { openPostgresDatabase } = await import('./postgres-database.ts');
    return openPostgresDatabase(config.databaseUrl);
  }
  const { openPgliteDatabase } = await import('./pglite-worker-database.ts');
  return openPgliteDatabase(config.dataDir, { sharedBuffers: config.pgliteSharedBuffers, pageCacheBytes: config.pglitePageCacheBytes });
}
