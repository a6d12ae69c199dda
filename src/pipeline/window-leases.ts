import type { SlotGrant } from './rate-window-repository.ts';

/** What a take from a shared window answers: slots given, or how long until the window ends. */
export type WindowTake = { taken: true; remaining: number; resetMs: number; windowEnd: number } | { taken: false; resetMs: number };

/**
 * This process's part of a shared window: slots it took and has not used (below zero: used
 * beyond them, paid by its next take), until the window ends.
 */
type SlotLease = { windowEnd: number; endsAt: number; slots: number; used: number };

/**
 * Per-minute windows shared by every process through a database row (rate-window-repository.ts),
 * of which each process holds a lease: a take is answered from the lease when it holds
 * enough slots, refused at once when the window as last seen cannot hold it (what was
 * handed out only grows within a window), and otherwise asks the row for what is missing.
 * Key request windows and deployment request and token windows all count through this.
 */
export class WindowLeases {
  readonly #take: (subject: string, limit: number, need: number) => Promise<SlotGrant>;
  readonly #sweepRows: () => Promise<void>;
  readonly #now: () => number;
  /** Leases by limit then subject, so a changed limit counts in a window of its own. */
  readonly #leases = new Map<number, Map<string, SlotLease>>();
  #nextSweepAt = 0;

  constructor(options: { take: (subject: string, limit: number, need: number) => Promise<SlotGrant>; sweep: () => Promise<void>; now?: () => number }) {
    this.#take = options.take;
    this.#sweepRows = options.sweep;
    // Read at each call, so a clock a test replaces is the one counted.
    this.#now = options.now ?? (() => Date.now());
  }

  /** A take answered from the lease alone (slots held, or a window seen too full); undefined when the row must be asked. */
  takeNow(subject: string, limit: number, amount: number): WindowTake | undefined {
    const now = this.#now();
    const lease = this.#current(subject, limit, now);
    if (lease === undefined) return undefined;
    if (lease.slots >= amount) {
      lease.slots -= amount;
      return { taken: true, remaining: limit - lease.used + lease.slots, resetMs: lease.endsAt - now, windowEnd: lease.windowEnd };
    }
    if (lease.slots + limit - lease.used < amount) return { taken: false, resetMs: lease.endsAt - now };
    return undefined;
  }

  /** Milliseconds until the window ends when, as last seen, it cannot hold `amount` more; else 0 (a take may succeed). */
  waitMs(subject: string, limit: number, amount: number): number {
    const now = this.#now();
    const lease = this.#current(subject, limit, now);
    return lease !== undefined && lease.slots < amount && lease.slots + limit - lease.used < amount ? lease.endsAt - now : 0;
  }

  /** `amount` slots from the lease, else from the row; a statement that fails throws as it failed. */
  async take(subject: string, limit: number, amount: number): Promise<WindowTake> {
    const askedAt = this.#now();
    const answered = this.takeNow(subject, limit, amount);
    if (answered !== undefined) return answered;
    if (askedAt >= this.#nextSweepAt) this.#sweep(askedAt);
    const held = this.#current(subject, limit, askedAt)?.slots ?? 0;
    const grant = await this.#take(subject, limit, amount - held);
    let byLimit = this.#leases.get(limit);
    if (!byLimit) {
      byLimit = new Map();
      this.#leases.set(limit, byLimit);
    }
    let lease = byLimit.get(subject);
    if (lease !== undefined && grant.windowEnd < lease.windowEnd) {
      // A take that crossed one of a newer window: it answers this call alone, the lease stays the newer window's.
      if (grant.granted < amount) return { taken: false, resetMs: Math.max(0, grant.msLeft) };
      return { taken: true, remaining: limit - grant.used, resetMs: Math.max(0, grant.msLeft), windowEnd: grant.windowEnd };
    }
    if (lease === undefined || lease.windowEnd !== grant.windowEnd) {
      // Timed from before the statement left, so this process's end is never after the database's.
      lease = { windowEnd: grant.windowEnd, endsAt: askedAt + grant.msLeft, slots: 0, used: 0 };
      byLimit.set(subject, lease);
    }
    // Takes of one window may come back out of order: what was handed out only grows.
    lease.used = Math.max(lease.used, grant.used);
    // Slots a concurrent take of this process brought serve too, even when this one got none.
    lease.slots += grant.granted;
    const resetMs = Math.max(0, lease.endsAt - this.#now());
    if (lease.slots < amount) return { taken: false, resetMs };
    lease.slots -= amount;
    return { taken: true, remaining: limit - lease.used + lease.slots, resetMs, windowEnd: lease.windowEnd };
  }

  /**
   * Settles slots taken in window `windowEnd` against what was really used: slots not used
   * go back to the lease, slots used beyond them are owed by its next take; nothing once
   * that window has ended.
   */
  settle(subject: string, limit: number, windowEnd: number, unused: number): void {
    const lease = this.#current(subject, limit, this.#now());
    if (lease !== undefined && lease.windowEnd === windowEnd) lease.slots += unused;
  }

  /** Slots of the window handed out and not held unused here, as this process last saw it (0 once it ended). */
  usedSeen(subject: string, limit: number): number {
    const lease = this.#current(subject, limit, this.#now());
    return lease === undefined ? 0 : lease.used - lease.slots;
  }

  #current(subject: string, limit: number, now: number): SlotLease | undefined {
    const lease = this.#leases.get(limit)?.get(subject);
    return lease !== undefined && lease.endsAt > now ? lease : undefined;
  }

  /** Forgets leases of windows that ended, here and (without waiting for it) in the database, at most once per SWEEP_MS. */
  #sweep(now: number): void {
    this.#nextSweepAt = now + SWEEP_MS;
    for (const byLimit of this.#leases.values()) for (const [subject, lease] of byLimit) if (lease.endsAt <= now) byLimit.delete(subject);
    // A failed sweep only leaves old rows for the next one.
    this.#sweepRows().catch(() => undefined);
  }
}

const SWEEP_MS = 10 * 60_000;
