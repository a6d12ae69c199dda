import { sweepFinishedRuns } from '../agents/durable/finished-run-retention.ts';
import { HALF_HOUR_ROLLUP_DAYS, sweepHalfHourRollups, sweepQuarterHourRollups } from '../billing/half-hour-rollup-retention.ts';
import { conversationRetentionDays, sweepConversations } from '../conversations/conversation-retention.ts';
import { runRetentionDays, sweepRunSteps } from '../runs/run-retention.ts';
import type { RetentionSweepOptions } from '../store/retention-sweep.ts';
import type { ServiceBuild } from './service-build.ts';

/** How often the retention sweeps run, and how soon after the start the first runs. */
const SWEEP_EVERY_MS = 3_600_000;
const FIRST_SWEEP_MS = 60_000;

type Sweep = { what: string; days: number; run: (options: RetentionSweepOptions) => Promise<number> };

/**
 * Retention of what runs and conversations leave: every hour, run steps and finished runs
 * older than JUNCTION_RUN_RETENTION_DAYS, the half-hour and quarter-hour usage rollups older than
 * HALF_HOUR_ROLLUP_DAYS, and conversations idle longer than
 * JUNCTION_CONVERSATION_RETENTION_DAYS when set. The sweeps run one after another, so they
 * never take more than one connection at a time.
 */
export function retentionServices(build: ServiceBuild): void {
  const { db, env, logger, now, startSteps, stops } = build;
  const runDays = runRetentionDays(env);
  const conversationDays = conversationRetentionDays(env);
  const sweeps: Sweep[] = [
    { what: 'run steps', days: runDays, run: sweepRunSteps },
    { what: 'finished runs', days: runDays, run: sweepFinishedRuns },
    { what: 'half-hour usage rollups', days: HALF_HOUR_ROLLUP_DAYS, run: sweepHalfHourRollups },
    { what: 'quarter-hour usage rollups', days: HALF_HOUR_ROLLUP_DAYS, run: sweepQuarterHourRollups },
    ...(conversationDays === undefined ? [] : [{ what: 'conversations', days: conversationDays, run: sweepConversations }]),
  ];
  const sweepAll = async () => {
    for (const sweep of sweeps) {
      try {
        await sweep.run({ db, days: sweep.days, now });
      } catch (error) {
        logger.warn({ err: error, sweep: sweep.what }, 'a retention sweep failed; it runs again later');
      }
    }
  };
  startSteps.push(() => {
    const first = setTimeout(() => void sweepAll(), FIRST_SWEEP_MS).unref();
    const timer = setInterval(() => void sweepAll(), SWEEP_EVERY_MS).unref();
    stops.push(() => {
      clearTimeout(first);
      clearInterval(timer);
    });
  });
}
