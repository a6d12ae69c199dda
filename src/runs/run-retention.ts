import { deleteRunStepsBefore } from './run-step-repository.ts';
import type { Queryable } from '../store/database.ts';

const DAY_MS = 86_400_000;
/** Steps one statement deletes: a sweep never holds a long lock or a long transaction. */
const SWEEP_BATCH = 1_000;
/** Batches one sweep deletes before it waits for the next: a backlog is worked off over several sweeps. */
const SWEEP_BATCHES = 20;

export type RetentionSweepOptions = { db: Queryable; days: number; now: () => Date };

/** Deletes the steps older than the retention in bounded batches; returns how many went. */
export async function sweepRunSteps({ db, days, now }: RetentionSweepOptions): Promise<number> {
  const before = new Date(now().getTime() - days * DAY_MS);
  let deleted = 0;
  for (let batch = 0; batch < SWEEP_BATCHES; batch += 1) {
    const count = await deleteRunStepsBefore(db, before, SWEEP_BATCH);
    deleted += count;
    if (count < SWEEP_BATCH) break;
  }
  return deleted;
}

/** JUNCTION_RUN_RETENTION_DAYS: how many days run steps are kept (default 30). */
export function runRetentionDays(env: Readonly<Record<string, string | undefined>>): number {
  const value = Number(env.JUNCTION_RUN_RETENTION_DAYS ?? 30);
  if (!Number.isInteger(value) || value < 1 || value > 3_650) throw new Error('JUNCTION_RUN_RETENTION_DAYS must be a whole number of days between 1 and 3650');
  return value;
}
