/**
 * What the embedded store does to keep its writes: the fsyncs of its files and its
 * checkpoints, counted by the engine's thread and read by the server's (the metrics). The
 * counts live in a SharedArrayBuffer both threads hold, so neither sends a message for them.
 */
const SLOTS = ['syncs', 'syncNanoseconds', 'checkpoints', 'checkpointNanoseconds', 'checkpointFailures'] as const;
type Slot = (typeof SLOTS)[number];

export type StoreDurabilityCounts = { syncs: number; syncSeconds: number; checkpoints: number; checkpointSeconds: number; checkpointFailures: number };

export class StoreDurabilityCounters {
  readonly buffer: SharedArrayBuffer;
  readonly #slots: BigInt64Array;

  /** New counters, or (on the engine's thread) the ones whose `buffer` the server's thread made. */
  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(SLOTS.length * BigInt64Array.BYTES_PER_ELEMENT)) {
    this.buffer = buffer;
    this.#slots = new BigInt64Array(buffer);
  }

  /** One fsync that took `nanoseconds`. */
  countSync(nanoseconds: bigint): void {
    this.#add('syncs', 1n);
    this.#add('syncNanoseconds', nanoseconds);
  }

  /** One checkpoint that took `nanoseconds`. */
  countCheckpoint(nanoseconds: bigint): void {
    this.#add('checkpoints', 1n);
    this.#add('checkpointNanoseconds', nanoseconds);
  }

  countCheckpointFailure(): void {
    this.#add('checkpointFailures', 1n);
  }

  read(): StoreDurabilityCounts {
    const value = (slot: Slot) => Number(Atomics.load(this.#slots, SLOTS.indexOf(slot)));
    return {
      syncs: value('syncs'),
      syncSeconds: value('syncNanoseconds') / 1e9,
      checkpoints: value('checkpoints'),
      checkpointSeconds: value('checkpointNanoseconds') / 1e9,
      checkpointFailures: value('checkpointFailures'),
    };
  }

  #add(slot: Slot, amount: bigint): void {
    Atomics.add(this.#slots, SLOTS.indexOf(slot), amount);
  }
}
