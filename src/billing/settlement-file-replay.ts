import { replayJournalFile } from './replay-journal-file.ts';
import { leftoverSegments, readSegment } from './settlement-file-journal.ts';
import type { SettlementQueue } from './settlement-queue.ts';

/**
 * Writes to the database every settlement a previous process left in its file journal
 * (settlement-file-journal.ts): the calls it settled in the window before it died. Each
 * file is removed once its settlements are written (replay-journal-file.ts); a usage row
 * already in the log adds no spend, so settlements the database already had are harmless.
 * Returns how many were replayed.
 *
 * Runs before stale leases are reclaimed: the reclaimer settles a dead process's journaled
 * calls (open_calls) as `interrupted` at their last recorded cost, and a row it wrote
 * first would keep the call's settled row, with its full cost, out of the log.
 */
export async function replaySettlementFiles(directory: string, queue: SettlementQueue): Promise<number> {
  // Listed before replaying: the replayed settlements are journaled again, in this process's own files.
  const files = await leftoverSegments(directory);
  let replayed = 0;
  for (const file of files) {
    const settlements = await readSegment(file);
    await replayJournalFile(queue, file, settlements);
    replayed += settlements.length;
  }
  return replayed;
}
