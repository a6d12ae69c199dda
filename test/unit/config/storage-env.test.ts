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
});
