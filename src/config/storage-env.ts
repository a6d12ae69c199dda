import type { StorageConfig } from '../store/open-database.ts';
import { EnvConfigError } from './env-config-error.ts';

/**
 * DATABASE_URL and JUNCTION_DATA_DIR, the two variables that choose the store, read apart
 * from the rest of the environment (src/config/env-config.ts, whose schema needs zod,
 * about 0.1 s to load): `npm start` begins opening the store before the server's other
 * modules load. readEnvConfig reads them through here too, so both agree.
 */
export function readStorageEnv(env: Readonly<Record<string, string | undefined>>): StorageConfig {
  const databaseUrl = env.DATABASE_URL;
  const dataDir = env.JUNCTION_DATA_DIR ?? './.junction';
  if (databaseUrl === '') throw new EnvConfigError('invalid environment: DATABASE_URL: is empty (unset it to use the embedded store)');
  if (dataDir === '') throw new EnvConfigError('invalid environment: JUNCTION_DATA_DIR: is empty (unset it for ./.junction)');
  return { databaseUrl, dataDir };
}
