import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProvider } from '@pydantic/genai-prices';
import { afterAll, describe, expect, it } from 'vitest';
import { publishedProviderModels, SNAPSHOT_PROVIDERS, snapshotFile } from '../../../src/catalog/published-price-data.ts';

/**
 * The snapshot of the published price data the catalog reads instead of importing the
 * whole package at every start: made from the package when missing or unreadable, and
 * read as it is when present.
 */
const root = mkdtempSync(join(tmpdir(), 'junction-price-snapshot-'));
let folders = 0;
const newFolder = () => join(root, `snapshots-${++folders}`);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('published price data', () => {
  it('is made from the package once, for every provider read, in a file named by the package version', () => {
    const folder = newFolder();
    for (const id of SNAPSHOT_PROVIDERS) expect(publishedProviderModels(id, folder)).toEqual(findProvider({ providerId: id })?.models);
    const version = (JSON.parse(readFileSync(join(import.meta.dirname, '../../../node_modules/@pydantic/genai-prices/package.json'), 'utf8')) as { version: string }).version;
    expect(readdirSync(folder)).toEqual([`providers-${version}-1.json`]);
    const kept = JSON.parse(readFileSync(snapshotFile(folder), 'utf8')) as Record<string, unknown>;
    for (const id of SNAPSHOT_PROVIDERS) expect(kept[id]).toEqual(findProvider({ providerId: id })?.models);
  });

  it('is read from the snapshot when there is one (the package is not consulted)', () => {
    const folder = newFolder();
    mkdirSync(folder, { recursive: true });
    const marked = { openai: [{ id: 'only-in-the-snapshot' }], anthropic: [], google: [], aws: [], cohere: [], mistral: [] };
    writeFileSync(snapshotFile(folder), JSON.stringify(marked));
    expect(publishedProviderModels('openai', folder)).toEqual([{ id: 'only-in-the-snapshot' }]);
    expect(publishedProviderModels('google', folder)).toEqual([]);
  });

  it('replaces a snapshot that is cut short or lacks a provider', () => {
    for (const broken of ['{"openai":[{"id":"gpt', JSON.stringify({ openai: [], anthropic: [] })]) {
      const folder = newFolder();
      mkdirSync(folder, { recursive: true });
      writeFileSync(snapshotFile(folder), broken);
      expect(publishedProviderModels('anthropic', folder)).toEqual(findProvider({ providerId: 'anthropic' })?.models);
      expect(JSON.parse(readFileSync(snapshotFile(folder), 'utf8'))).toHaveProperty('google');
    }
  });

  it('still answers from the package when the folder cannot be made', () => {
    // A folder below a file: not even root can make it.
    const file = join(root, 'a-file');
    writeFileSync(file, '');
    const folder = join(file, 'snapshots');
    expect(publishedProviderModels('openai', folder)).toEqual(findProvider({ providerId: 'openai' })?.models);
    expect(existsSync(folder)).toBe(false);
  });
});
