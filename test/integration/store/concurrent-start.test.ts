import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, migrate } from '../../../src/store/migrate.ts';
import { openPostgresDatabase } from '../../../src/store/postgres-database.ts';
import { createScratchDatabase } from '../../support/test-database.ts';

/**
 * Several processes starting at once on an empty PostgreSQL database (workers, the CLI
 * beside a starting server, a rolling deploy): each creates pgvector and the migration
 * table "if not exists", which PostgreSQL does not make safe against a concurrent twin.
 * Every one of them must start, and each migration must be applied once.
 */
const baseUrl = process.env.DATABASE_URL;
let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;

describe.skipIf(!baseUrl)('concurrent start-ups on an empty PostgreSQL database', () => {
  beforeAll(async () => {
    scratch = await createScratchDatabase(baseUrl ?? '', 'junction_concurrent');
  });
  afterAll(async () => {
    await scratch.drop();
  });

  it('all open and migrate, and every migration is applied exactly once', async () => {
    const starts = Array.from({ length: 6 }, async () => {
      const db = await openPostgresDatabase(scratch.url, 2);
      try {
        return await migrate(db);
      } finally {
        await db.close();
      }
    });
    const outcomes = await Promise.allSettled(starts);
    const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [String(outcome.reason)] : []));
    expect(failures).toEqual([]);

    const files = readdirSync(MIGRATIONS_DIR).filter((file) => file.endsWith('.sql'));
    const appliedByEach = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.length : -1));
    // One start applied every file; the others found them applied.
    expect(appliedByEach.reduce((sum, count) => sum + count, 0)).toBe(files.length);

    const db = await openPostgresDatabase(scratch.url, 1);
    try {
      const recorded = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM schema_migrations');
      expect(recorded.rows[0]?.count).toBe(files.length);
    } finally {
      await db.close();
    }
  });
});
