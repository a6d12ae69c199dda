import { describe, expect, it } from 'vitest';
import { readStorageEnv } from '../../../src/config/storage-env.ts';

describe('the store variables', () => {
  it('leave the embedded buffer pool to the engine default when JUNCTION_PGLITE_SHARED_BUFFERS is unset', () => {
    expect(readStorageEnv({})).toEqual({ databaseUrl: undefined, dataDir: './.junction', pgliteSharedBuffers: undefined });
  });

  it('take a buffer pool from 8MB to 1GB written in PostgreSQL units', () => {
    for (const size of ['8MB', '192MB', '8192kB', '1024MB', '1GB']) {
      expect(readStorageEnv({ JUNCTION_PGLITE_SHARED_BUFFERS: size }).pgliteSharedBuffers).toBe(size);
    }
  });

  it('refuse any other buffer pool in one line that names the variable', () => {
    for (const size of ['7MB', '2GB', '1025MB', '0MB', '64mb', '64 MB', '64', 'MB', '', '-8MB', '1.5GB']) {
      expect(() => readStorageEnv({ JUNCTION_PGLITE_SHARED_BUFFERS: size })).toThrow(
        `invalid environment: JUNCTION_PGLITE_SHARED_BUFFERS: '${size}' is not a size from 8MB to 1GB (write it as 64MB, 512MB or 1GB)`,
      );
    }
  });

  it('take a page cache size in MB or GB up to 8GB, or 0 for none, and leave it to the default when unset', () => {
    expect(readStorageEnv({}).pglitePageCacheBytes).toBeUndefined();
    expect(readStorageEnv({ JUNCTION_PGLITE_PAGE_CACHE: '0' }).pglitePageCacheBytes).toBe(0);
    expect(readStorageEnv({ JUNCTION_PGLITE_PAGE_CACHE: '64MB' }).pglitePageCacheBytes).toBe(64 * 1024 * 1024);
    expect(readStorageEnv({ JUNCTION_PGLITE_PAGE_CACHE: '8GB' }).pglitePageCacheBytes).toBe(8 * 1024 ** 3);
  });

  it('refuse any other page cache size in one line that names the variable', () => {
    for (const size of ['9GB', '8193MB', '00', '64mb', '64', '1.5GB', '-1MB', '', '256 MB', '0MB']) {
      expect(() => readStorageEnv({ JUNCTION_PGLITE_PAGE_CACHE: size })).toThrow(
        `invalid environment: JUNCTION_PGLITE_PAGE_CACHE: '${size}' is not 0 or a size up to 8GB (write it as 0, 256MB or 1GB)`,
      );
    }
  });
});
