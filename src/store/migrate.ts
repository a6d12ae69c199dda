import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../core/project-root.ts';
import type { Database } from './database.ts';
import { SCHEMA_LOCK_SQL } from './schema-lock.ts';

export const MIGRATIONS_DIR = join(PROJECT_ROOT, 'migrations');

type Migration = { version: number; name: string; sql: string; checksum: string };

async function readMigrations(dir: string): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file)).sort();
  return Promise.all(
    files.map(async (file) => {
      const sql = await readFile(`${dir}/${file}`, 'utf8');
      return {
        version: Number(file.slice(0, 4)),
        name: file.replace(/\.sql$/, ''),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    }),
  );
}

/** Migration files on disk that the database has not applied (empty: the schema is current). */
export async function pendingMigrations(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const applied = await db.query<{ version: number }>('SELECT version FROM schema_migrations');
  const done = new Set(applied.rows.map((row) => row.version));
  return (await readMigrations(dir)).filter((migration) => !done.has(migration.version)).map((migration) => migration.name);
}

/**
 * Applies pending migrations, each in its own transaction, recorded with a checksum.
 * An advisory lock makes concurrent start-ups on one database apply each file once.
 * A changed file that was already applied is an error: migrations are forward-only.
 */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await readMigrations(dir);
  // Every start of an existing store lands here: one read settles it without the lock
  // and a transaction per file (nothing pending, nothing to race for).
  if (await allApplied(db, migrations)) return [];
  await db.transaction(async (tx) => {
    await tx.query(SCHEMA_LOCK_SQL);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
  });
  const applied: string[] = [];
  for (const migration of migrations) {
    const done = await db.transaction(async (tx) => {
      await tx.query(SCHEMA_LOCK_SQL);
      const existing = await tx.query<{ checksum: string }>('SELECT checksum FROM schema_migrations WHERE version = $1', [migration.version]);
      const row = existing.rows[0];
      if (row) {
        if (row.checksum !== migration.checksum) {
          throw new Error(`migration ${migration.name} was changed after it was applied (checksum mismatch)`);
        }
        return false;
      }
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [migration.version, migration.name, migration.checksum]);
      return true;
    });
    if (done) applied.push(migration.name);
  }
  return applied;
}

/**
 * Whether every file is already applied, unchanged (a changed one is the same error as
 * below). False when the table does not exist yet: a new store takes the locked path.
 */
async function allApplied(db: Database, migrations: Migration[]): Promise<boolean> {
  let rows: Array<{ version: number; checksum: string }>;
  try {
    rows = (await db.query<{ version: number; checksum: string }>('SELECT version, checksum FROM schema_migrations')).rows;
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'code' in error && error.code === '42P01') return false; // undefined_table
    throw error;
  }
  const applied = new Map(rows.map((row) => [row.version, row.checksum]));
  for (const migration of migrations) {
    const checksum = applied.get(migration.version);
    if (checksum === undefined) return false;
    if (checksum !== migration.checksum) throw new Error(`migration ${migration.name} was changed after it was applied (checksum mismatch)`);
  }
  return true;
}
