import { deleteInBatches, type RetentionSweepOptions, retentionCutoff } from '../store/retention-sweep.ts';

/**
 * How long the half-hour rollups (migrations 0035 and 0039) are kept: the Overview reads at
 * most its 30 days and the rest of the month before them; the daily rollups keep the long history.
 */
export const HALF_HOUR_ROLLUP_DAYS = 62;

/** The quarter hours hold up to 96 rows a day per key, model and agent: their batches are larger, still short statements of small rows. */
const QUARTER_HOUR_SWEEP_BATCH = 10_000;

/** Deletes a rollup table's UTC days older than `days` in bounded batches, by its primary key; how many rows went. */
function sweepDays(table: string, primaryKey: string, batchSize?: number) {
  return ({ db, days, now }: RetentionSweepOptions): Promise<number> => {
    const before = retentionCutoff(now(), days).toISOString().slice(0, 10);
    return deleteInBatches(async (limit) => {
      const result = await db.query(`DELETE FROM ${table} WHERE (${primaryKey}) IN (SELECT ${primaryKey} FROM ${table} WHERE day < $1::date ORDER BY day LIMIT $2)`, [before, limit]);
      return result.rowCount;
    }, batchSize);
  };
}

/** The running sums per dimension (0035). */
export const sweepHalfHourRollups = sweepDays('usage_half_hour_rollups', 'account_id, day, dimension, name');
/** The totals per quarter hour, key, model and agent (0039). */
export const sweepQuarterHourRollups = sweepDays('usage_quarter_hour_rollups', 'account_id, day, quarter_hour, key_name, model, agent_name', QUARTER_HOUR_SWEEP_BATCH);
