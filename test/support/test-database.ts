import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A new, empty database on the server of `baseUrl`, and a way to drop it (tests, benchmarks). */
export async function createScratchDatabase(baseUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * A fresh, empty database for one test file: a new PostgreSQL database when
 * DATABASE_URL is set (CI runs the suite on both engines), else in-memory PGlite.
 */
export async function freshStorage(): Promise<{ databaseUrl?: string; dataDir: string; drop(): Promise<void> }> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) return { dataDir: 'memory://', drop: async () => undefined };
  const database = await createScratchDatabase(baseUrl, 'junction_test');
  return { databaseUrl: database.url, dataDir: 'memory://', drop: database.drop };
}

export const engineName = (): 'postgres' | 'pglite' => (process.env.DATABASE_URL ? 'postgres' : 'pglite');
