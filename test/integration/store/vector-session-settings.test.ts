import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/store/database.ts';
import { openKnowledgeDatabase } from '../../support/knowledge-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

let db: Database;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ db, close } = await openKnowledgeDatabase());
});
afterAll(() => close());

describe(`pgvector session settings (${engineName()})`, () => {
  it('has iterative HNSW scans on in every session, once pgvector is loaded', async () => {
    // Several at once: on PostgreSQL each takes its own pooled connection.
    const settings = await Promise.all(
      Array.from({ length: 4 }, () =>
        db.transaction(async (tx) => {
          await tx.query(`SELECT '[1,0]'::vector <=> '[0,1]'::vector`);
          const result = await tx.query<{ setting: string; jit: string }>(`SELECT current_setting('hnsw.iterative_scan') AS setting, current_setting('jit') AS jit`);
          await tx.query('SELECT pg_sleep(0.05)');
          return result.rows[0];
        }),
      ),
    );
    // JIT off too: a generic plan's cost of a branch it never runs would otherwise start a compile.
    expect(settings).toEqual(Array.from({ length: 4 }, () => ({ setting: 'relaxed_order', jit: 'off' })));
  });
});
