import type { Logger } from 'pino';
import { reclaimStaleLeases } from '../billing/lease-sql.ts';
import type { Settlement } from '../billing/settlement.ts';
import { SettlementFileJournal } from '../billing/settlement-file-journal.ts';
import { replaySettlementFiles } from '../billing/settlement-file-replay.ts';
import { SettlementQueue } from '../billing/settlement-queue.ts';
import { replayShutdownJournals, writeShutdownJournal } from '../billing/shutdown-journal.ts';
import type { EnvConfig } from '../config/env-config.ts';
import type { JunctionMetrics } from '../ops/metrics.ts';
import type { Database } from '../store/database.ts';
import type { ProcessRegistration } from '../store/process-registry.ts';
import type { ServiceBuild } from './service-build.ts';

/** Dead processes are looked for often enough that their calls settle within the lease timeout + 5 s. */
const reclaimIntervalMs = (leaseTimeoutSeconds: number): number => Math.min(5_000, (leaseTimeoutSeconds * 1000) / 3);

/**
 * The embedded store in a data folder: one process by construction (the folder is locked),
 * the case the settlement file journal is for. Not PostgreSQL, where several processes share
 * the database, nor a store in memory, which a crash loses whole.
 */
function embeddedStoreInFolder(config: EnvConfig, db: Database): boolean {
  return db.engine === 'pglite' && !config.databaseUrl && !config.dataDir.startsWith('memory://');
}

/**
 * The settlement file journal's folder: inside the store's own data folder, always. The
 * folder's lock makes its process the only one that writes or replays these files; a folder
 * shared by two stores (JUNCTION_JOURNAL_DIR can be) would replay one store's calls into the other.
 */
const settlementFileJournalDirectory = (config: EnvConfig): string => `${config.dataDir}/settling`;

/** Where unwritten settlements go at shutdown: JUNCTION_JOURNAL_DIR, else beside the embedded store (none for memory://). */
function journalDirectory(config: EnvConfig): string | undefined {
  if (config.journalDir) return config.journalDir;
  return config.dataDir.startsWith('memory://') ? undefined : `${config.dataDir}/journal`;
}

/**
 * The settlement queue with its file journals, and the start steps that replay what a
 * previous process left in them and reclaim the leases of dead processes.
 */
export function settlementServices(
  build: ServiceBuild,
  registration: ProcessRegistration | undefined,
  metrics: { current?: JunctionMetrics },
): { settlements: SettlementQueue; journalDir: string | undefined } {
  const { config, db, logger } = build;
  const journalDir = journalDirectory(config);
  // On the embedded store, settled calls are durable in a file within 10 ms and written to the store every embeddedSettlementWindowMs.
  const settlingDir = embeddedStoreInFolder(config, db) ? settlementFileJournalDirectory(config) : undefined;
  const writeBehind = settlingDir
    ? {
        journal: new SettlementFileJournal(settlingDir, {
          onError: (error) => logger.error({ err: error, settlingDir }, 'the settlement file journal failed; settlements are written to the store every 10 ms from now on'),
        }),
        windowMs: config.embeddedSettlementWindowMs,
      }
    : undefined;
  // On PostgreSQL, settled calls the database refuses wait in a file until it takes them: a process killed meanwhile loses none.
  const outageSettlingDir = !settlingDir && journalDir && registration ? `${journalDir}/settling` : undefined;
  const outageJournal = outageSettlingDir
    ? {
        journal: new SettlementFileJournal(outageSettlingDir, {
          onError: (error) => logger.error({ err: error, outageSettlingDir }, 'the settlement file journal failed; settlements the database refuses are held in memory only'),
        }),
      }
    : undefined;
  const settlements = new SettlementQueue(
    db,
    registration?.id,
    {
      onError: (error) => logger.error({ err: error }, 'settlement flush failed; will retry'),
      onBacklog: (backlog) => logger.warn(backlog, 'settlements are waiting for the database'),
      onUsage: (usage) => metrics.current?.observeUsage(usage),
      onPoisoned: (settlement, error) =>
        logger.error({ err: error, usageId: settlement.usage?.id, spendMicros: settlement.spendMicros }, 'a settlement could not be written; kept for the shutdown journal'),
    },
    writeBehind,
    outageJournal,
  );
  addReplaySteps(build, settlements, { settlingDir, outageSettlingDir, journalDir, registration });
  return { settlements, journalDir };
}

/** The start steps that settle what earlier processes left unwritten, in the order they must land. */
function addReplaySteps(
  { config, db, logger, startSteps, stops }: ServiceBuild,
  settlements: SettlementQueue,
  {
    settlingDir,
    outageSettlingDir,
    journalDir,
    registration,
  }: { settlingDir: string | undefined; outageSettlingDir: string | undefined; journalDir: string | undefined; registration: ProcessRegistration | undefined },
): void {
  if (settlingDir) {
    startSteps.push(async () => {
      // Calls the last process settled in its window before it died, before the reclaimer
      // settles its journaled calls as interrupted (settlement-file-replay.ts).
      const replayed = await replaySettlementFiles(settlingDir, settlements);
      if (replayed > 0) logger.info({ replayed, settlingDir }, 'replayed settlements from the settlement file journal');
    });
  }
  if (outageSettlingDir) {
    startSteps.push(async () => {
      // Calls a process on this machine served while the database refused them, and did not live to write.
      const replayed = await replaySettlementFiles(outageSettlingDir, settlements, { skipLiveWriters: true });
      if (replayed > 0) logger.info({ replayed, outageSettlingDir }, 'replayed settlements held while the database was refusing them');
    });
  }
  if (registration) {
    startSteps.push(async () => {
      // Leases of processes that died without returning them go back first.
      await reclaimStaleLeases(db, config.leaseTimeoutSeconds);
      await registration.start();
      const timer = setInterval(() => void reclaimStaleLeases(db, config.leaseTimeoutSeconds).catch(() => undefined), reclaimIntervalMs(config.leaseTimeoutSeconds));
      timer.unref();
      stops.push(() => clearInterval(timer));
    });
  }
  if (journalDir && registration) {
    startSteps.push(async () => {
      // Spend a previous process could not write at its shutdown lands before anything else.
      const replayed = await replayShutdownJournals(journalDir, settlements);
      if (replayed > 0) logger.info({ replayed, journalDir }, 'replayed settlements journaled at the last shutdown');
    });
  }
}

/** Settlements the store could not take at shutdown: into the journal for the next start, or logged as lost (memory://). */
export async function journalUnwritten(logger: Logger, journalDir: string | undefined, holderId: string | undefined, unwritten: Settlement[]): Promise<void> {
  const spendMicros = unwritten.reduce((sum, settlement) => sum + settlement.spendMicros, 0);
  if (!journalDir) {
    logger.error({ settlements: unwritten.length, spendMicros }, 'settlements could not be written and this store keeps no journal (memory://): they are lost');
    return;
  }
  const file = await writeShutdownJournal(journalDir, holderId ?? 'unregistered', unwritten);
  logger.warn({ settlements: unwritten.length, spendMicros, file }, 'the database was unreachable at shutdown: settlements journaled for the next start');
}
