import { replayJournalFile } from './replay-journal-file.ts';
import { leftoverSegments, readSegment, segmentWriterPid } from './settlement-file-journal.ts';
import type { SettlementQueue } from './settlement-queue.ts';

/**
 * Writes to the database every settlement a previous process left in its file journal
 * (settlement-file-journal.ts): the calls it settled in the window before it died. Each
 * file is removed once its settlements are written (replay-journal-file.ts); a usage row
 * already in the log adds no spend, so settlements the database already had are harmless.
 * Returns how many were replayed.
 *
 * `skipLiveWriters`: the folder may be shared by processes on one PostgreSQL database (the
 * outage journal), so a file whose writer still runs on this machine is left to it.
 *
 * Runs before stale leases are reclaimed: the reclaimer settles a dead process's journaled
 * calls (open_calls) as `interrupted` at their last recorded cost, and a row it wrote
 * first would keep the call's settled row, with its full cost, out of the log.
 */
export async function replaySettlementFiles(directory: string, queue: SettlementQueue, options: { skipLiveWriters?: boolean } = {}): Promise<number> {
  // Listed before replaying: the replayed settlements are journaled again, in this process's own files.
  const files = (await leftoverSegments(directory)).filter((file) => !(options.skipLiveWriters && writerIsAlive(file)));
  let replayed = 0;
  for (const file of files) {
    const settlements = await readSegment(file);
    await replayJournalFile(queue, file, settlements);
    replayed += settlements.length;
  }
  return replayed;
}

/** Whether another process of this machine with the id in the file's name runs (this process's own id is from a previous life: a restarted container often gets the same id). */
function writerIsAlive(file: string): boolean {
  const pid = segmentWriterPid(file);
  if (pid === undefined || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
