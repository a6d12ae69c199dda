import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { readEnvConfig } from '../../src/config/env-config.ts';
import { createServices } from '../../src/assembly/services.ts';
import { openPgliteDatabase } from '../../src/store/pglite-worker-database.ts';
import { updateVectorIndexHint } from '../../src/store/pglite-store-memory.ts';

/**
 * Everything under JUNCTION_DATA_DIR is the owner's only (files 0600, folders 0700),
 * whatever the umask: the store holds every account's keys, usage and documents.
 * This is about the embedded engine's folder, so it runs on PGlite on both engines' runs.
 */

const root = mkdtempSync(join(tmpdir(), 'junction-modes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every entry under `folder` (itself included) whose mode has a group or other bit. */
function openEntries(folder: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0) found.push(`${path.slice(folder.length) || '/'} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  walk(folder);
  return found;
}

function countEntries(folder: string): number {
  let count = 0;
  const walk = (path: string) => {
    count += 1;
    if (lstatSync(path).isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  walk(folder);
  return count;
}

describe('the embedded store folder', () => {
  it('is created owner-only by the server, written to and closed', async () => {
    const dataDir = join(root, 'fresh', 'data');
    const config = readEnvConfig({ LOG_LEVEL: 'silent', JUNCTION_DATA_DIR: dataDir });
    const services = await createServices(config);
    const app = await buildApp(services);
    await app.ready();
    await services.db.query('CREATE TABLE written (id int)');
    await services.db.query('INSERT INTO written SELECT generate_series(1, 1000)');
    await services.db.query('CHECKPOINT');
    updateVectorIndexHint(dataDir, 8 * 1024 ** 3);
    await app.close();
    await services.close();

    expect(countEntries(dataDir)).toBeGreaterThan(500);
    expect(openEntries(dataDir)).toEqual([]);
    // The folder made for the store's parent as well.
    expect(lstatSync(join(root, 'fresh')).mode & 0o077).toBe(0);
  });

  it('tightens a store made with open modes when it is opened, and keeps its data', async () => {
    const dataDir = join(root, 'old');
    const first = await openPgliteDatabase(dataDir);
    await first.query('CREATE TABLE kept (id int)');
    await first.query('INSERT INTO kept VALUES (7)');
    await first.close();
    // What earlier versions left: folders 0755, files 0666 (pg_hba.conf included).
    const loosen = (path: string) => {
      const stat = lstatSync(path);
      if (stat.isDirectory()) {
        for (const entry of readdirSync(path)) loosen(join(path, entry));
        chmodSync(path, 0o755);
      } else chmodSync(path, 0o666);
    };
    loosen(dataDir);
    expect(openEntries(dataDir).length).toBeGreaterThan(500);

    const reopened = await openPgliteDatabase(dataDir);
    try {
      expect(openEntries(dataDir)).toEqual([]);
      expect((await reopened.query<{ id: number }>('SELECT id FROM kept')).rows).toEqual([{ id: 7 }]);
    } finally {
      await reopened.close();
    }
  });
});
