import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { poolForVectorIndexes, readVectorIndexHint, storeMemory, updateVectorIndexHint, VECTOR_INDEX_HINT_FILE } from '../../../src/store/pglite-store-memory.ts';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

describe('the embedded pool chosen from the vector indexes', () => {
  it('stays at 16 MB for a store without a large vector index', () => {
    expect(poolForVectorIndexes(0, 24 * GIB)).toBe('16MB');
    expect(poolForVectorIndexes(8 * MIB, 24 * GIB)).toBe('16MB');
  });

  it('holds the indexes with a quarter to spare beside the default, in 16 MB steps', () => {
    // 16 + 132 × 1.25 = 181 MB, rounded up.
    expect(poolForVectorIndexes(132 * MIB, 24 * GIB)).toBe('192MB');
    expect(poolForVectorIndexes(8 * MIB + 1, 24 * GIB)).toBe('32MB');
  });

  it('takes at most an eighth of the machine memory and never more than 1 GB', () => {
    expect(poolForVectorIndexes(600 * MIB, 2 * GIB)).toBe('256MB');
    expect(poolForVectorIndexes(4 * GIB, 64 * GIB)).toBe('1024MB');
    expect(poolForVectorIndexes(600 * MIB, 64 * MIB)).toBe('16MB');
  });
});

describe('the vector index hint in a data folder', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'junction-pool-hint-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('reads as no large index when missing, unreadable or not a size', async () => {
    expect(readVectorIndexHint(folder)).toBe(0);
    for (const text of ['{', '{"vectorIndexBytes":"big"}', '{"vectorIndexBytes":-5}', 'null']) {
      await writeFile(join(folder, VECTOR_INDEX_HINT_FILE), text);
      expect(readVectorIndexHint(folder)).toBe(0);
    }
  });

  it('sizes the pool, with the page cache off beside an enlarged one; the operator settings win', async () => {
    expect(storeMemory(folder, {})).toEqual({ sharedBuffers: '16MB', pageCacheBytes: 256 * MIB, hintFolder: folder });
    expect(storeMemory(undefined, {})).toEqual({ sharedBuffers: '16MB', pageCacheBytes: 256 * MIB, hintFolder: undefined });
    await writeFile(join(folder, VECTOR_INDEX_HINT_FILE), JSON.stringify({ vectorIndexBytes: 132 * MIB }));
    expect(storeMemory(folder, {})).toEqual({ sharedBuffers: '192MB', pageCacheBytes: 0, hintFolder: folder });
    expect(storeMemory(folder, { pageCacheBytes: 64 * MIB })).toEqual({ sharedBuffers: '192MB', pageCacheBytes: 64 * MIB, hintFolder: folder });
    expect(storeMemory(folder, { sharedBuffers: '48MB' })).toEqual({ sharedBuffers: '48MB', pageCacheBytes: 256 * MIB, hintFolder: undefined });
  });

  it('is rewritten only when the measured size changes the pool the next start chooses', async () => {
    updateVectorIndexHint(folder, 2 * MIB);
    // Still the default pool: nothing to keep.
    await expect(readFile(join(folder, VECTOR_INDEX_HINT_FILE))).rejects.toThrow(/ENOENT/);
    updateVectorIndexHint(folder, 132 * MIB);
    expect(readVectorIndexHint(folder)).toBe(132 * MIB);
    updateVectorIndexHint(folder, 132 * MIB + 4096);
    expect(readVectorIndexHint(folder)).toBe(132 * MIB);
    updateVectorIndexHint(folder, 1 * MIB);
    expect(readVectorIndexHint(folder)).toBe(1 * MIB);
  });
});
