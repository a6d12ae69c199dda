import { unlink } from 'node:fs/promises';
import type { Settlement } from './settlement.ts';
import type { SettlementQueue } from './settlement-queue.ts';

/**
 * Writes the settlements a journal file holds (a shutdown journal's, or a settlement file
 * journal's segment) and then removes the file. Their lease parts are dropped: the process
 * that journaled them is gone and its leases are reclaimed on their own. A file whose
 * settlements could not all be written stays for the next start.
 */
export async function replayJournalFile(queue: SettlementQueue, file: string, settlements: readonly Settlement[]): Promise<void> {
  // Replayed (`true`): the process that served these calls already observed their usage.
  for (const settlement of settlements) queue.add({ ...settlement, keyLeaseMicros: 0, accountLeaseMicros: 0 }, true);
  await queue.drain(30_000);
  if (queue.pendingCount > 0) throw new Error(`replaying ${file} did not finish; it stays for the next start`);
  await unlink(file);
}
