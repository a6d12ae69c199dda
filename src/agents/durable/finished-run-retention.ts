import type { Queryable } from '../../store/database.ts';
import { deleteInBatches, type RetentionSweepOptions, retentionCutoff } from '../../store/retention-sweep.ts';

/**
 * Deletes up to `limit` runs that can no longer resume or be answered and last changed
 * before `before`, oldest first, with their streamed events (by cascade) and any checkpoint
 * rows left of their threads. A run paused for an approval is kept: its answer may still come.
 * SKIP LOCKED: sweeps of several hosts at once split the rows instead of waiting on each other.
 */
async function deleteFinishedRunsBefore(db: Queryable, before: Date, limit: number): Promise<number> {
  const result = await db.query<{ id: string }>(
    `WITH gone AS (
       DELETE FROM agent_runs WHERE id IN (
         SELECT id FROM agent_runs
         WHERE status IN ('completed', 'incomplete', 'failed', 'cancelled', 'superseded', 'resumed') AND updated_at < $1
         ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id),
     writes AS (DELETE FROM agent_checkpoint_writes WHERE thread_id IN (SELECT id FROM gone)),
     blobs AS (DELETE FROM agent_checkpoint_blobs WHERE thread_id IN (SELECT id FROM gone)),
     checkpoints AS (DELETE FROM agent_checkpoints WHERE thread_id IN (SELECT id FROM gone))
     SELECT id FROM gone`,
    [before, limit],
  );
  // rows, not rowCount: for a SELECT over a data-modifying CTE PGlite reports the rows the CTE changed.
  return result.rows.length;
}

/** Deletes the finished runs older than the run retention in bounded batches; how many went. */
export async function sweepFinishedRuns({ db, days, now }: RetentionSweepOptions): Promise<number> {
  const before = retentionCutoff(now(), days);
  return deleteInBatches((limit) => deleteFinishedRunsBefore(db, before, limit));
}
