import { DatabaseUnavailableError, databaseOutageOf, isConnectionError } from '../store/connection-errors.ts';
import type { Database } from '../store/database.ts';
import { JOURNAL_START_MS, type OpenCall } from './open-call.ts';
import type { Settlement } from './settlement.ts';
import type { UsageRecord } from './usage-record.ts';
import { writeSettlementBatch } from './settlement-batch-sql.ts';
import type { JournalSegment, SettlementFileJournal } from './settlement-file-journal.ts';
import { hasUsageRow, type JournaledSettlement } from './settlement-journal-line.ts';

export type { Settlement } from './settlement.ts';

/** Group-commit window: long enough to gather a busy second's calls into ~100 writes, short enough that /generations reads soon see them. */
const FLUSH_INTERVAL_MS = 10;
const MAX_BATCH = 500;
/** Retries after a failed flush back off to at most this, so rows land within ~1 s of the database returning. */
const MAX_RETRY_DELAY_MS = 1_000;
/** A backlog older than this is logged (at most once per BACKLOG_LOG_EVERY_MS). */
const BACKLOG_WARN_AGE_MS = 5_000;
const BACKLOG_LOG_EVERY_MS = 10_000;

export type SettlementQueueEvents = {
  /** A flush failed; it is retried. */
  onError(error: unknown): void;
  /** Settlements have waited long (database down or slow). */
  onBacklog?(backlog: SettlementBacklog): void;
  /** One settlement could not be written even alone, after its text was made storable: kept aside. */
  onPoisoned?(settlement: Settlement, error: unknown): void;
  /** Every settled call's usage row as it is queued (metrics count tokens, cost and statuses here); not those replayed from a journal. */
  onUsage?(usage: UsageRecord): void;
};

export type SettlementBacklog = { depth: number; oldestPendingAgeMs: number };

/**
 * A file journal that makes settled calls durable within its own sync interval, so the
 * database may be written every `windowMs` instead (settlement-file-journal.ts).
 */
export type WriteBehind = { journal: SettlementFileJournal; windowMs: number };

/**
 * A file journal that holds settled calls only while the database refuses them (PostgreSQL,
 * where each call is written within the group-commit window otherwise): a process killed
 * during an outage leaves them for the next start instead of losing them.
 */
export type OutageJournal = { journal: SettlementFileJournal };

/**
 * `journaled`: its call's journal row may be in the database, so the batch that settles the call removes it.
 * `segment`: the file-journal segment holding it (write-behind), released once the database has it.
 */
type Queued = { settlement: Settlement; queuedAt: number; sequence: number; journaled: boolean; segment: JournalSegment | undefined };

/**
 * Group commit: settlements queue in memory and are written every few milliseconds in
 * one statement (usage rows, key spend windows, account usage, lease balances, crash
 * journal), so a busy gateway makes a handful of writes per batch instead of several
 * per request.
 *
 * It never stalls: a flush that fails because the database is unreachable is retried
 * with backoff until it lands; one that fails for its data is split in halves until
 * the bad settlement is alone, and that one is kept aside (and journaled at shutdown)
 * while the others land.
 */
export class SettlementQueue {
  readonly #db: Database;
  readonly #holderId: string | undefined;
  readonly #events: SettlementQueueEvents;
  #pending: Queued[] = [];
  /** The batch of the flush in flight: not durable until its statement commits. */
  #writing: Queued[] = [];
  /** Crash-journal rows to upsert with the next batch, by call id. */
  #journal = new Map<string, OpenCall>();
  /** Calls journaled and not settled yet: only these may be re-journaled after a failed flush. */
  readonly #openCalls = new Set<string>();
  /** Open calls whose journal row a flush has taken (written, or being written): their settling batch removes it. */
  readonly #journalTaken = new Set<string>();
  /** Settlements no write could take (kept for the shutdown journal, never silently dropped). */
  readonly #poisoned: Settlement[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** When #timer fires (performance.now()); a sooner flush replaces it. */
  #timerDueAt = Number.POSITIVE_INFINITY;
  #flushing: Promise<void> | undefined;
  #failures = 0;
  /** Settlements added so far: a position in the queue for writeQueued(). */
  #added = 0;
  #lastBacklogLog = 0;
  #closed = false;
  /** Bumped by forgetLeaseParts, so a batch in flight at that moment is corrected if it fails. */
  #leaseEpoch = 0;
  readonly #writeBehind: WriteBehind | undefined;
  readonly #outageJournal: OutageJournal | undefined;
  /** The error of the last flush that failed because the database could not be used. */
  #lastOutage: unknown;

  constructor(db: Database, holderId: string | undefined, events: SettlementQueueEvents | ((error: unknown) => void), writeBehind?: WriteBehind, outageJournal?: OutageJournal) {
    this.#db = db;
    this.#holderId = holderId;
    this.#events = typeof events === 'function' ? { onError: events } : events;
    this.#writeBehind = writeBehind;
    this.#outageJournal = writeBehind ? undefined : outageJournal;
  }

  /** The file journal settlements are recorded in, whichever of the two kinds this queue has. */
  get #fileJournal(): SettlementFileJournal | undefined {
    return this.#writeBehind?.journal ?? this.#outageJournal?.journal;
  }

  /** Whether a settlement queued now goes to the file journal: always with write-behind, during an outage with an outage journal. */
  #journalsNow(settlement: Settlement): settlement is JournaledSettlement {
    const journal = this.#fileJournal;
    if (!journal?.healthy || !hasUsageRow(settlement)) return false;
    return this.#writeBehind !== undefined || this.#failures > 0;
  }

  /**
   * Queues a settlement. `replayed`: one a previous process journaled (its usage was observed
   * by that process, so onUsage does not hear of it again).
   */
  add(settlement: Settlement, replayed = false): void {
    if (this.#closed) {
      this.#events.onError(new Error('a settlement arrived after shutdown and was not written'));
      this.#poisoned.push(settlement);
      return;
    }
    if (settlement.usage && !replayed) this.#events.onUsage?.(settlement.usage);
    const callId = settlement.usage?.id;
    if (callId !== undefined && this.#openCalls.delete(callId)) this.#journal.delete(callId);
    const journaled = callId !== undefined && this.#journalTaken.delete(callId);
    // Only a usage row makes a replay idempotent (rows already in the log add no spend): spend
    // without one is written within the short window, as is everything once the file fails.
    const segment = this.#journalsNow(settlement) ? this.#fileJournal?.record(settlement) : undefined;
    const queued: Queued = { settlement, queuedAt: Date.now(), sequence: ++this.#added, journaled, segment };
    this.#pending.push(queued);
    if (this.#pending.length >= MAX_BATCH) void this.flush();
    else this.#schedule(this.#windowOf(queued));
  }

  /**
   * Journals a call that is under way (its start, then its progress): written with the
   * first batch after it has lasted JOURNAL_START_MS, so a process that dies leaves a
   * row its reclaimer settles as `interrupted`. A call that settles before then is never
   * written at all: under load most calls are short, and a row inserted and deleted
   * again per call was a third of every batch's rows.
   */
  journal(call: OpenCall): void {
    if (this.#closed || !this.#holderId) return;
    this.#openCalls.add(call.id);
    this.#journal.set(call.id, call);
    this.#schedule(Math.max(FLUSH_INTERVAL_MS, call.startedAt.getTime() + JOURNAL_START_MS - Date.now()));
  }

  /**
   * Resolves once every settlement queued before the call is in the database, writing it
   * at once instead of at the next group commit; rejects if the database refuses it. A
   * durable agent checkpoint waits for this: a run resumed from that checkpoint does not
   * repeat the step, so the step's calls must already be billed when it is written.
   */
  async writeQueued(): Promise<void> {
    const upTo = this.#added;
    const unwritten = (queued: Queued) => queued.sequence <= upTo;
    while (this.#pending.some(unwritten) || this.#writing.some(unwritten)) {
      if (this.#closed) throw new Error('settlements are no longer being written (shutting down)');
      const failuresBefore = this.#failures;
      await this.flush();
      if (this.#failures > failuresBefore) {
        const outage = databaseOutageOf(this.#lastOutage);
        throw outage ? new DatabaseUnavailableError(outage, this.#lastOutage) : new Error('settlements could not be written to the database');
      }
    }
  }

  /**
   * Resolves once no journaled call is under way, or after `timeoutMs`. At shutdown, calls
   * whose connections were cut settle through their own abort path (billing what they
   * produced); this waits for that instead of leaving them to the next start's reclaimer.
   */
  async openCallsSettled(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#openCalls.size > 0 && Date.now() < deadline) await sleep(20);
  }

  /** Resolves once everything queued before the call is written, or `timeoutMs` passed (a flush still under way then goes on). */
  async drain(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.#pending.length > 0 || this.#journal.size > 0 || this.#flushing) && Date.now() < deadline) {
      await withinDeadline(this.#flushing ?? this.flush({ wholeJournal: true }), deadline);
      if (this.#failures > 0 && this.#pending.length > 0) await sleep(Math.min(this.#retryDelay(), Math.max(0, deadline - Date.now())));
    }
  }

  /**
   * The leases these settlements would subtract from were reclaimed by another process:
   * keep the spend and usage rows, drop the lease parts (the reclaim already returned them).
   */
  forgetLeaseParts(): void {
    this.#leaseEpoch += 1;
    for (const { settlement } of this.#pending) {
      settlement.keyLeaseMicros = 0;
      settlement.accountLeaseMicros = 0;
    }
  }

  /**
   * Writes what is queued (retrying for up to `timeoutMs`); later settlements are
   * refused. Returns what could not be written, for the caller to journal: spend is
   * never dropped at shutdown.
   */
  async close(timeoutMs = 10_000): Promise<Settlement[]> {
    await this.drain(timeoutMs);
    this.#closed = true;
    this.#clearTimer();
    const unwritten = [...this.#pending.map((queued) => queued.settlement), ...this.#poisoned];
    this.#pending = [];
    // The file keeps what the database did not take, beside the shutdown journal: replaying both is harmless.
    await this.#fileJournal?.close();
    return unwritten;
  }

  /** Writes what is queued and the journal rows that are due (`wholeJournal`: all of them, as at shutdown). */
  async flush(options: { wholeJournal?: boolean } = {}): Promise<void> {
    if (this.#flushing) return this.#flushing;
    this.#clearTimer();
    const batch = this.#pending.splice(0, MAX_BATCH);
    const usageIds = new Set<string>();
    for (const queued of batch) if (queued.settlement.usage) usageIds.add(queued.settlement.usage.id);
    const journal = this.#dueJournal(usageIds, options.wholeJournal === true);
    if (batch.length === 0 && journal.length === 0) {
      this.#scheduleYoungJournal();
      return;
    }
    const epoch = this.#leaseEpoch;
    this.#writing = batch;
    this.#flushing = this.#write(batch, journal)
      .then((unwritten) => {
        this.#releaseSegments(batch, unwritten.settlements);
        if (unwritten.settlements.length === 0 && unwritten.journal.length === 0) {
          this.#failures = 0;
          return;
        }
        this.#failures += 1;
        this.#journalHeldBack(unwritten.settlements);
        if (epoch !== this.#leaseEpoch) {
          for (const { settlement } of unwritten.settlements) {
            settlement.keyLeaseMicros = 0;
            settlement.accountLeaseMicros = 0;
          }
        }
        this.#pending.unshift(...unwritten.settlements);
        // Progress journaled since is newer than what failed; a call settled since needs no row.
        for (const call of unwritten.journal) if (this.#openCalls.has(call.id) && !this.#journal.has(call.id)) this.#journal.set(call.id, call);
      })
      .finally(() => {
        this.#flushing = undefined;
        this.#writing = [];
        this.#logBacklog();
        if (this.#pending.length > 0) this.#scheduleOldestPending();
        else this.#scheduleYoungJournal();
      });
    return this.#flushing;
  }

  /**
   * Takes the journal rows to write now: those of calls that have lasted JOURNAL_START_MS
   * (or all with `whole`). A call settled in this batch needs none (an upsert and a
   * delete of one row cannot share a statement); younger calls wait for a later flush.
   */
  #dueJournal(settledIds: Set<string>, whole: boolean): OpenCall[] {
    const dueBefore = Date.now() - JOURNAL_START_MS;
    const due: OpenCall[] = [];
    for (const [id, call] of this.#journal) {
      if (settledIds.has(id)) this.#journal.delete(id);
      else if (whole || call.startedAt.getTime() <= dueBefore) {
        due.push(call);
        this.#journal.delete(id);
        this.#journalTaken.add(id);
      }
    }
    return due;
  }

  /**
   * The group-commit window a settlement waits in: longer when the file journal holds it, or
   * when it only gives back leased budget (a dead process's leases are reclaimed whole, so
   * losing one costs nothing). Spend without a usage row keeps the short window.
   */
  #windowOf(queued: Queued): number {
    if (!this.#writeBehind) return FLUSH_INTERVAL_MS;
    const { settlement } = queued;
    const leaseOnly = settlement.usage === undefined && settlement.spendMicros === 0;
    return queued.segment !== undefined || leaseOnly ? this.#writeBehind.windowMs : FLUSH_INTERVAL_MS;
  }

  /** A flush for when the first settlement still queued has waited its window. */
  #scheduleOldestPending(): void {
    this.#schedule(this.#nextDueIn());
  }

  /** Milliseconds until a queued settlement has waited its window or a journal row is due (0: now; Infinity: nothing queued). */
  #nextDueIn(): number {
    const now = Date.now();
    let dueIn = Number.POSITIVE_INFINITY;
    for (const queued of this.#pending) dueIn = Math.min(dueIn, queued.queuedAt + this.#windowOf(queued) - now);
    for (const call of this.#journal.values()) dueIn = Math.min(dueIn, call.startedAt.getTime() + JOURNAL_START_MS - now);
    return Math.max(0, dueIn);
  }

  /** Settlements the database refused, into the outage journal until it takes them (those already in a file journal stay there). */
  #journalHeldBack(retried: readonly Queued[]): void {
    for (const queued of retried) {
      if (queued.segment === undefined && this.#journalsNow(queued.settlement)) queued.segment = this.#fileJournal?.record(queued.settlement);
    }
  }

  /** The file journal's hold on each settlement the database now has (or kept aside, for the shutdown journal). */
  #releaseSegments(batch: readonly Queued[], retried: readonly Queued[]): void {
    const journal = this.#fileJournal;
    if (!journal) return;
    const retrying = new Set(retried);
    for (const queued of batch) {
      if (queued.segment === undefined || retrying.has(queued)) continue;
      journal.release(queued.segment);
      queued.segment = undefined;
    }
  }

  /** A flush for when the oldest journal row still waiting becomes due. */
  #scheduleYoungJournal(): void {
    let oldest = Number.POSITIVE_INFINITY;
    for (const call of this.#journal.values()) oldest = Math.min(oldest, call.startedAt.getTime());
    if (oldest === Number.POSITIVE_INFINITY) return;
    this.#schedule(Math.max(FLUSH_INTERVAL_MS, oldest + JOURNAL_START_MS - Date.now()));
  }

  /**
   * Settlements not yet durable, queued or in the statement being written, and the age
   * of the oldest (metrics, backlog logs). Zero means every call settled so far is in
   * the database.
   */
  backlog(): SettlementBacklog {
    const queuedAt = [this.#writing[0]?.queuedAt, this.#pending[0]?.queuedAt].filter((value) => value !== undefined);
    const oldest = queuedAt.length > 0 ? Math.min(...queuedAt) : undefined;
    return { depth: this.#writing.length + this.#pending.length, oldestPendingAgeMs: oldest === undefined ? 0 : Date.now() - oldest };
  }

  get pendingCount(): number {
    return this.#pending.length;
  }

  /** Settlements kept aside because no write could take them (each was reported through onPoisoned). */
  get poisonedCount(): number {
    return this.#poisoned.length;
  }

  /**
   * Writes a batch; on a data error, halves it until the failing settlement is alone
   * and keeps that one aside. Returns what must be retried (the database is unreachable).
   */
  async #write(batch: Queued[], journal: OpenCall[]): Promise<{ settlements: Queued[]; journal: OpenCall[] }> {
    try {
      await writeSettlementBatch(
        this.#db,
        batch.map((queued) => queued.settlement),
        journal,
        this.#holderId,
        new Date(),
        journaledCallIds(batch),
      );
      return { settlements: [], journal: [] };
    } catch (error) {
      if (this.#closedDatabase(error)) return { settlements: batch, journal };
      this.#events.onError(error);
      if (batch.length + journal.length <= 1) {
        const [queued] = batch;
        const outcome = queued ? await this.#writeStripped(queued) : 'written';
        if (queued && outcome === 'unreachable') return { settlements: [queued], journal: [] };
        if (queued && outcome === 'failed') {
          this.#poisoned.push(queued.settlement);
          this.#events.onPoisoned?.(queued.settlement, error);
        }
        // A journal row that cannot be written is only a lost crash estimate; the call still settles.
        return { settlements: [], journal: [] };
      }
      const [firstBatch, secondBatch] = halves(batch);
      const [firstJournal, secondJournal] = halves(journal);
      const first = await this.#write(firstBatch, firstJournal);
      const second = await this.#write(secondBatch, secondJournal);
      return { settlements: [...first.settlements, ...second.settlements], journal: [...first.journal, ...second.journal] };
    }
  }

  /**
   * Last try for a settlement that failed alone: its usage row without the
   * client-chosen text, so the spend and the row's figures still land.
   */
  async #writeStripped(queued: Queued): Promise<'written' | 'unreachable' | 'failed'> {
    const usage = queued.settlement.usage;
    if (!usage) return 'failed';
    const stripped = { ...queued.settlement, usage: { ...usage, requestedModel: null, units: null, errorCode: 'unstorable_usage_text' } };
    try {
      await writeSettlementBatch(this.#db, [stripped], [], this.#holderId, new Date(), journaledCallIds([queued]));
      return 'written';
    } catch (error) {
      return isConnectionError(error) ? 'unreachable' : 'failed';
    }
  }

  /** An unreachable database: report it and retry everything later. */
  #closedDatabase(error: unknown): boolean {
    if (!isConnectionError(error)) return false;
    this.#lastOutage = error;
    if (this.#failures === 0) this.#events.onError(error);
    return true;
  }

  /**
   * A flush in `delayMs`, unless one is due sooner. A later one already set is moved up:
   * a call journaled at its start (every non-streamed call) sets a timer for when it will
   * have lasted JOURNAL_START_MS, and settlements queued under that timer waited for it
   * (about a second, or MAX_BATCH rows) instead of the group-commit window.
   */
  #schedule(delayMs: number): void {
    if (this.#closed) return;
    // While the database is failing, nothing pulls the next try before its backoff.
    const delay = this.#failures > 0 ? Math.max(delayMs, this.#retryDelay()) : delayMs;
    const dueAt = performance.now() + delay;
    if (this.#timer !== undefined) {
      if (dueAt >= this.#timerDueAt) return;
      clearTimeout(this.#timer);
    }
    this.#timerDueAt = dueAt;
    // The timer clears itself before flushing: a timer that fired while a flush was in
    // flight must not stay set, or no later add() would ever schedule again.
    this.#timer = setTimeout(() => {
      this.#clearTimer();
      // A timer set for a call's journal row or a short-window settlement that is gone by now
      // would write the rest early: settlements held by the file journal wait for their window.
      const dueIn = this.#failures > 0 ? 0 : this.#nextDueIn();
      if (dueIn === Number.POSITIVE_INFINITY) return;
      if (dueIn > 0) this.#schedule(dueIn);
      else void this.flush();
    }, delay);
  }

  #clearTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDueAt = Number.POSITIVE_INFINITY;
  }

  #retryDelay(): number {
    return Math.min(MAX_RETRY_DELAY_MS, 50 * 2 ** Math.min(this.#failures, 10));
  }

  #logBacklog(): void {
    if (!this.#events.onBacklog) return;
    const backlog = this.backlog();
    if (backlog.oldestPendingAgeMs < BACKLOG_WARN_AGE_MS || Date.now() - this.#lastBacklogLog < BACKLOG_LOG_EVERY_MS) return;
    this.#lastBacklogLog = Date.now();
    this.#events.onBacklog(backlog);
  }
}

/** The calls of `batch` whose journal rows may exist: the only ones the batch has to delete. */
function journaledCallIds(batch: readonly Queued[]): string[] {
  const ids: string[] = [];
  for (const queued of batch) if (queued.journaled && queued.settlement.usage) ids.push(queued.settlement.usage.id);
  return ids;
}

function halves<T>(items: T[]): [T[], T[]] {
  const middle = Math.ceil(items.length / 2);
  return [items.slice(0, middle), items.slice(middle)];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `work`, or nothing once `deadline` (epoch ms) has passed: a flush against a database that does not answer must not hold its caller longer. */
async function withinDeadline(work: Promise<void>, deadline: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
  });
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
