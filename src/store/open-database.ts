import type { Database } from './database.ts';
import { openPgliteDatabase } from './pglite-database.ts';
import { openPostgresDatabase } from './postgres-database.ts';

export type StorageConfig = { databaseUrl?: string; dataDir: string };

/** `DATABASE_URL` wins; otherwise the embedded engine in `JUNCTION_DATA_DIR`. */
export const openDatabase = (config: StorageConfig): Promise<Database> =>
  config.databaseUrl ? openPostgresDatabase(config.databaseUrl) : openPgliteDatabase(config.dataDir);
