import { keepUsagePartitions, usageRetentionDays } from '../billing/usage-partitions.ts';
import type { ServiceBuild } from './service-build.ts';

/** How often the usage log's months are kept (created ahead, expired ones dropped). */
const UPKEEP_EVERY_MS = 3_600_000;

/**
 * The usage log's monthly partitions: the coming months created at the start (before the
 * first call is served, so none lands in the default partition), then every hour, when
 * months older than JUNCTION_USAGE_RETENTION_DAYS are dropped too.
 */
export function usagePartitionServices(build: ServiceBuild): void {
  const { db, env, logger, now, startSteps, stops } = build;
  const retentionDays = usageRetentionDays(env);
  startSteps.push(async () => {
    await keepUsagePartitions(db, now(), undefined).catch((error: unknown) => logger.warn({ err: error }, 'the usage log months ahead could not be created; the hourly upkeep tries again'));
    const upkeep = () =>
      void keepUsagePartitions(db, now(), retentionDays)
        .then((kept) => {
          if (kept.created.length + kept.dropped.length + kept.defaultRowsDeleted > 0) logger.info(kept, 'usage log months kept');
        })
        .catch((error: unknown) => logger.warn({ err: error }, 'the usage log upkeep failed; it runs again later'));
    const timer = setInterval(upkeep, UPKEEP_EVERY_MS).unref();
    // The first retention runs a minute after the start, off its path.
    const first = setTimeout(upkeep, 60_000).unref();
    stops.push(() => {
      clearTimeout(first);
      clearInterval(timer);
    });
  });
}
