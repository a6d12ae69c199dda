import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEnvConfig } from '../../../src/config/env-config.ts';
import { startServer } from '../../../src/server.ts';
import { freshStorage } from '../../support/test-database.ts';

/**
 * A stopping server first says "draining" on /readyz for JUNCTION_DRAIN_DELAY_MS while it
 * still serves, then stops taking connections. On PGlite, and PostgreSQL with DATABASE_URL.
 */
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

async function serverWithDrainDelay(drainDelayMs: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'junction-drain-'));
  folders.push(dataDir);
  const storage = await freshStorage();
  const server = await startServer(
    readEnvConfig({
      JUNCTION_DATA_DIR: dataDir,
      ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl } : {}),
      JUNCTION_AGENTS_DIR: '/nonexistent',
      JUNCTION_TOOLS_DIR: '/nonexistent',
      LOG_LEVEL: 'silent',
      PORT: '0',
      JUNCTION_DRAIN_DELAY_MS: String(drainDelayMs),
    }),
  );
  return { server, drop: storage.drop };
}

describe('draining on shutdown', () => {
  it('answers 503 "draining" on /readyz while still serving, then closes', async () => {
    const { server, drop } = await serverWithDrainDelay(1_500);
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      const stopped = server.stop();
      const readiness = await fetch(`${server.url}/readyz`);
      expect(readiness.status).toBe(503);
      expect(await readiness.json()).toMatchObject({ status: 'draining' });
      // Still serving during the delay: a balancer that has not probed yet loses nothing.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      await stopped;
      await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    } finally {
      await drop();
    }
  });
});
