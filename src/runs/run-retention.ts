import { deleteInBatches, type RetentionSweepOptions, retentionCutoff } from '../store/retention-sweep.ts';
import { deleteRunStepsBefore } from './run-step-repository.ts';

/** Deletes the steps older than the retention in bounded batches; returns how many went. */
export async function sweepRunSteps({ db, days, now }: RetentionSweepOptions): Promise<number> {
  const before = retentionCutoff(now(), days);
  return deleteInBatches((limit) => deleteRunStepsBefore(db, before, limit));
}

/** JUNCTION_RUN_RETENTION_DAYS: how many days run steps and finished runs are kept (default 30). */
export function runRetentionDays(env: Readonly<Record<string, string | undefined>>): number {
  const value = Number(env.JUNCTION_RUN_RETENTION_DAYS ?? 30);
  if (!Number.isInteger(value) || value < 1 || value > 3_650) throw new Error('JUNCTION_RUN_RETENTION_DAYS must be a whole number of days between 1 and 3650');
  return value;
}
