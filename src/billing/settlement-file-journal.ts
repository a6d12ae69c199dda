import { constants } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { syncFolder } from '../core/write-file-atomically.ts';
import type { Settlement } from './settlement.ts';
import { decodeSettlement, encodeSettlement, type JournaledSettlement } from './settlement-journal-line.ts';

/**
 * A write-behind file journal of settled calls, for the embedded store: each settlement
 * with a usage row is appended to a file in the store's folder and made durable (one
 * O_DSYNC write) within `syncEveryMs`, so the settlement queue may write the database
 * less often than that without a `kill -9` losing more than `syncEveryMs` of settled
 * calls. A database batch costs the embedded engine nearly the same whatever its size, so
 * fewer, larger batches are most of what a longer window saves.
 *
 * Files are segments, one started every `segmentMs`; a segment is removed once it is
 * closed and every settlement in it has been written to the database (`release`). The
 * next start replays what is left (replaySettlementFiles), through the replay-safe batch
 * statement: a usage row already in the log adds no spend, so replaying a settlement the
 * database already has is harmless. Only settlements with a usage row are journaled:
 * spend without one carries no id that would make its replay idempotent, and the queue
 * writes those within its short window, as before.
 *
 * One process per folder: the embedded store's data folder is locked by its process.
 */
const PREFIX = 'settling-';
const SUFFIX = '.jsonl';
/**
 * Appends made durable by the write itself (O_DSYNC: data and the size, as fdatasync), so
 * a sync is one trip to libuv's thread pool, not a write and then an fdatasync. Each trip
 * wakes a pool thread, which on a busy two-core machine took the CPU from the gateway's
 * thread: the two calls showed as 1.7% of its time in profiles under load.
 */
const SEGMENT_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_DSYNC ?? 0);
/** Where the system has no O_DSYNC (Windows), each write is followed by an fdatasync as before. */
const SYNC_AFTER_WRITE = constants.O_DSYNC === undefined;

/** A segment file: a mark `record` returns and `release` takes back. */
export type JournalSegment = {
  readonly path: string;
  readonly startedAt: number;
  /** Settlements recorded here and not yet written to the database. */
  unreleased: number;
  /** Lines not yet written to the file. */
  lines: string[];
  handle: FileHandle | undefined;
  /** No more lines will be recorded here (a newer segment took over). */
  closed: boolean;
  removed: boolean;
};

export type SettlementFileJournalOptions = {
  syncEveryMs?: number;
  segmentMs?: number;
  /** A write or sync failed: the journal stops taking settlements (the queue falls back to its short window). */
  onError?(error: unknown): void;
};

export class SettlementFileJournal {
  readonly #directory: string;
  readonly #syncEveryMs: number;
  readonly #segmentMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #segments = new Set<JournalSegment>();
  #current: JournalSegment | undefined;
  #sequence = 0;
  #timer: NodeJS.Timeout | undefined;
  #syncing: Promise<void> | undefined;
  #healthy = true;
  /** Files being removed: a sync resolves only once they are gone. */
  readonly #removals = new Set<Promise<void>>();
  /** The folder is made at the first write: before the store has opened (and locked) its folder, nothing is written there. */
  #folderMade = false;

  constructor(directory: string, options: SettlementFileJournalOptions = {}) {
    this.#directory = directory;
    this.#syncEveryMs = options.syncEveryMs ?? 10;
    this.#segmentMs = options.segmentMs ?? 1_000;
    this.#onError = options.onError ?? (() => undefined);
  }

  /** False once a write failed: settlements recorded from then on would not be durable. */
  get healthy(): boolean {
    return this.#healthy;
  }

  /** Appends `settlement`, durable within syncEveryMs; the mark goes back through `release` once the database has it. */
  record(settlement: JournaledSettlement): JournalSegment {
    const segment = this.#segmentForNow();
    segment.unreleased += 1;
    segment.lines.push(encodeSettlement(settlement));
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.sync();
    }, this.#syncEveryMs);
    return segment;
  }

  /** The database has the settlement recorded in `segment` (or kept it aside for the shutdown journal). */
  release(segment: JournalSegment): void {
    segment.unreleased -= 1;
    // The newest segment, once the database has all of it, goes too: an idle server leaves no
    // file of calls already written (which a kill would have the next start replay for nothing).
    // Under load newer calls keep it open; after a pause the next call starts a new file.
    if (segment === this.#current && segment.unreleased === 0) {
      segment.closed = true;
      this.#current = undefined;
    }
    void this.#removeIfDone(segment);
  }

  /** Writes and syncs every line recorded so far (one sync at a time; a call during one waits for the next). */
  async sync(): Promise<void> {
    while (this.#syncing) await this.#syncing;
    this.#syncing = this.#syncSegments();
    try {
      await this.#syncing;
    } finally {
      this.#syncing = undefined;
    }
    // Segments released while the sync ran were left to it.
    for (const segment of [...this.#segments]) await this.#removeIfDone(segment);
    await Promise.all(this.#removals);
  }

  /** Syncs what is recorded, closes the files and removes every segment the database has whole. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#current) this.#current.closed = true;
    this.#current = undefined;
    // Every segment is closed now, so the sync closes their files; those the database does not
    // have whole stay for the next start.
    await this.sync();
  }

  #segmentForNow(): JournalSegment {
    const now = Date.now();
    if (this.#current && now - this.#current.startedAt < this.#segmentMs) return this.#current;
    if (this.#current) {
      this.#current.closed = true;
      void this.#removeIfDone(this.#current);
    }
    // Names sort in the order they were made: a start replays them oldest first.
    const name = `${PREFIX}${now.toString().padStart(15, '0')}-${String(this.#sequence++).padStart(6, '0')}-${process.pid}${SUFFIX}`;
    const segment: JournalSegment = { path: path.join(this.#directory, name), startedAt: now, unreleased: 0, lines: [], handle: undefined, closed: false, removed: false };
    this.#segments.add(segment);
    this.#current = segment;
    return segment;
  }

  async #syncSegments(): Promise<void> {
    for (const segment of [...this.#segments]) {
      if (segment.removed) continue;
      if (segment.lines.length > 0) {
        const text = segment.lines.join('');
        segment.lines = [];
        try {
          if (!this.#folderMade) await mkdir(this.#directory, { recursive: true, mode: 0o700 });
          this.#folderMade = true;
          const created = segment.handle === undefined;
          segment.handle ??= await open(segment.path, SEGMENT_FLAGS, 0o600);
          await segment.handle.write(text);
          if (SYNC_AFTER_WRITE) await segment.handle.datasync();
          // A new file's name is durable only once its folder is synced (once a segment, about once a second).
          if (created) await syncFolder(this.#directory);
        } catch (error) {
          if (this.#healthy) this.#onError(error);
          this.#healthy = false;
        }
      }
      if (segment.closed && segment.handle) {
        await segment.handle.close().catch(() => undefined);
        segment.handle = undefined;
      }
    }
  }

  /** Removes a closed segment the database has whole; its unwritten lines are dropped with it. */
  async #removeIfDone(segment: JournalSegment): Promise<void> {
    if (!segment.closed || segment.unreleased > 0 || segment.removed) return;
    // A sync under way may be writing it: that sync removes it when it ends.
    if (this.#syncing) return;
    segment.removed = true;
    segment.lines = [];
    this.#segments.delete(segment);
    const handle = segment.handle;
    segment.handle = undefined;
    const removal = (async () => {
      await handle?.close().catch(() => undefined);
      await unlink(segment.path).catch(() => undefined);
    })();
    this.#removals.add(removal);
    await removal;
    this.#removals.delete(removal);
  }
}

/** The segment files a previous process left in `directory`, oldest first. */
export async function leftoverSegments(directory: string): Promise<string[]> {
  try {
    const names = (await readdir(directory)).filter((name) => name.startsWith(PREFIX) && name.endsWith(SUFFIX));
    return names.sort().map((name) => path.join(directory, name));
  } catch {
    return [];
  }
}

/** The id of the process that wrote a segment file (its name ends with it), or undefined for a name not of this form. */
export function segmentWriterPid(file: string): number | undefined {
  const match = /-(\d+)\.jsonl$/.exec(path.basename(file));
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * The settlements in a segment file. A process killed mid-write can leave its last line
 * cut short: a line that is not whole JSON ends the file's settlements (nothing after a
 * torn write was ever synced).
 */
export async function readSegment(file: string): Promise<Settlement[]> {
  const settlements: Settlement[] = [];
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    if (line === '') continue;
    const settlement = decodeSettlement(line);
    if (settlement === undefined) break;
    settlements.push(settlement);
  }
  return settlements;
}
