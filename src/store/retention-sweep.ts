import type { Queryable } from './database.ts';

const DAY_MS = 86_400_000;
/** Rows one statement deletes: a sweep never holds a long lock or a long transaction. */
export const SWEEP_BATCH = 1_000;
/** Batches one sweep deletes before it waits for the next: a backlog is worked off over several sweeps. */
export const SWEEP_BATCHES = 20;

/** What a retention sweep needs: where, how many days rows are kept, and the clock. */
export type RetentionSweepOptions = { db: Queryable; days: number; now: () => Date };

/** The instant before which rows kept `days` days are old. */
export const retentionCutoff = (now: Date, days: number): Date => new Date(now.getTime() - days * DAY_MS);

/**
 * Deletes through `deleteBatch` (which deletes at most `limit` rows, oldest first, and says
 * how many went) until a batch comes back short or the sweep has had its share; how many went.
 */
export async function deleteInBatches(deleteBatch: (limit: number) => Promise<number>, batchSize = SWEEP_BATCH): Promise<number> {
  let deleted = 0;
  for (let batch = 0; batch < SWEEP_BATCHES; batch += 1) {
    const count = await deleteBatch(batchSize);
    deleted += count;
    if (count < batchSize) break;
  }
  return deleted;
}
