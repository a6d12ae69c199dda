import { deleteInBatches, type RetentionSweepOptions, retentionCutoff } from '../store/retention-sweep.ts';

/**
 * How long the half-hour rollups (migration 0035) are kept: the Overview reads at most its
 * 30 days and the rest of the month before them; the daily rollups keep the long history.
 */
export const HALF_HOUR_ROLLUP_DAYS = 62;

/** Deletes the UTC days older than `days` in bounded batches; returns how many rows went. */
export async function sweepHalfHourRollups({ db, days, now }: RetentionSweepOptions): Promise<number> {
  const before = retentionCutoff(now(), days).toISOString().slice(0, 10);
  return deleteInBatches(async (limit) => {
    const result = await db.query(
      `DELETE FROM usage_half_hour_rollups WHERE (account_id, day, dimension, name) IN (
         SELECT account_id, day, dimension, name FROM usage_half_hour_rollups WHERE day < $1::date ORDER BY day LIMIT $2)`,
      [before, limit],
    );
    return result.rowCount;
  });
}
