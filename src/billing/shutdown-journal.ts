import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomically } from '../core/write-file-atomically.ts';
import { replayJournalFile } from './replay-journal-file.ts';
import type { Settlement } from './settlement.ts';
import type { SettlementQueue } from './settlement-queue.ts';

/**
 * Settlements a stopping process could not write (the database was down for the whole
 * shutdown grace) go to a file in the journal folder instead of being dropped; the next
 * start replays them. Replays are safe to repeat: a usage row already in the log adds no
 * spend (see writeSettlementBatch).
 */
const PREFIX = 'unsettled-';

export async function writeShutdownJournal(directory: string, holderId: string, settlements: readonly Settlement[]): Promise<string> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const file = path.join(directory, `${PREFIX}${holderId}-${Date.now()}.json`);
  // A crash mid-write never leaves a half file that a start would misread, and the file is
  // on the disk before the process stops: these settlements are nowhere else.
  await writeFileAtomically(file, JSON.stringify(settlements), { mode: 0o600, durable: true });
  return file;
}

/**
 * Queues every journaled settlement (their lease parts dropped: the dead holder's
 * leases are reclaimed on their own) and removes each file once its rows are written.
 * Returns how many settlements were replayed.
 */
export async function replayShutdownJournals(directory: string, queue: SettlementQueue): Promise<number> {
  let names: string[];
  try {
    names = (await readdir(directory)).filter((name) => name.startsWith(PREFIX) && name.endsWith('.json'));
  } catch {
    return 0;
  }
  let replayed = 0;
  for (const name of names) {
    const file = path.join(directory, name);
    const settlements = parseJournal(await readFile(file, 'utf8'));
    await replayJournalFile(queue, file, settlements);
    replayed += settlements.length;
  }
  return replayed;
}

function parseJournal(text: string): Settlement[] {
  const parsed = JSON.parse(text) as Settlement[];
  return parsed.map((settlement) => (settlement.usage ? { ...settlement, usage: { ...settlement.usage, createdAt: new Date(settlement.usage.createdAt) } } : settlement));
}
