import type { Database, LOST_NOTIFICATIONS } from './database.ts';
import type { ProcessRegistration } from './process-registry.ts';

const ACK_MEMORY_MS = 10_000;

/** NOTIFY payload of a change: what changed, and which change (so acks can be matched). */
export const changePayload = (subject: string, changeId: string): string => `${subject} ${changeId}`;

/** The NOTIFY channel a kind of change is announced on, and the one its acknowledgements come back on. */
export type ChangeChannels = { changes: string; acks: string };

/**
 * Makes "a change of something every process caches applies on the very next request,
 * on every process" true without a database read per request. Each change is announced
 * by NOTIFY in the changing transaction; each live process drops its cached copy and
 * acknowledges; the change's author returns only once every live process (per the
 * registry's heartbeats) has acknowledged, or after a timeout for the dead. Keys and
 * account plans each have a pair of channels.
 */
export class ChangeSync {
  readonly #db: Database;
  readonly #channels: ChangeChannels;
  readonly #registration: ProcessRegistration | undefined;
  readonly #onChange: (subject: string | typeof LOST_NOTIFICATIONS) => void;
  readonly #acks = new Map<string, Set<string>>();
  readonly #waiters = new Set<() => void>();
  readonly #unsubscribes: Array<() => Promise<void>> = [];

  constructor(db: Database, channels: ChangeChannels, registration: ProcessRegistration | undefined, onChange: (subject: string | typeof LOST_NOTIFICATIONS) => void) {
    this.#db = db;
    this.#channels = channels;
    this.#registration = registration;
    this.#onChange = onChange;
  }

  async start(): Promise<void> {
    this.#unsubscribes.push(
      await this.#db.listen(this.#channels.changes, (payload) => {
        const [subject, changeId] = payload.split(' ');
        if (subject) this.#onChange(subject);
        if (changeId && this.#registration) {
          this.#db.query('SELECT pg_notify($1, $2)', [this.#channels.acks, `${changeId} ${this.#registration.id}`]).catch(() => undefined);
        }
      }),
    );
    this.#unsubscribes.push(
      await this.#db.listen(this.#channels.acks, (payload) => {
        const [changeId, processId] = payload.split(' ');
        if (!changeId || !processId) return;
        let acks = this.#acks.get(changeId);
        if (!acks) {
          acks = new Set();
          this.#acks.set(changeId, acks);
          setTimeout(() => this.#acks.delete(changeId), ACK_MEMORY_MS).unref();
        }
        acks.add(processId);
        for (const wake of this.#waiters) wake();
      }),
    );
  }

  /** Applies a change this process made at once (its own notification arrives later). */
  changedHere(subject: string): void {
    this.#onChange(subject);
  }

  async stop(): Promise<void> {
    for (const unsubscribe of this.#unsubscribes.splice(0)) await unsubscribe();
  }

  /** Resolves once every other live process has dropped what changed (or timeoutMs passed). */
  async propagated(changeId: string, timeoutMs = 2_000): Promise<boolean> {
    const others = this.#registration
      ? await this.#registration.otherLiveProcesses()
      : (await this.#db.query<{ id: string }>(`SELECT id FROM lease_holders WHERE heartbeat_at > now() - interval '30 seconds'`)).rows.map((row) => row.id);
    const done = () => others.every((id) => this.#acks.get(changeId)?.has(id));
    if (done()) return true;
    return new Promise((resolve) => {
      const finish = (result: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(result);
      };
      const check = () => {
        if (done()) finish(true);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.#waiters.add(check);
    });
  }
}
