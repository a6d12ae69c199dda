import { type Database, LOST_NOTIFICATIONS } from '../store/database.ts';
import type { ProcessRegistration } from '../store/process-registry.ts';

export const KEY_CHANGES_CHANNEL = 'junction_key_changes';
const KEY_ACKS_CHANNEL = 'junction_key_change_acks';
const ACK_MEMORY_MS = 10_000;

/** NOTIFY payload of a key change: which key, and which change (so acks can be matched). */
export const keyChangePayload = (lookupId: string, changeId: string): string => `${lookupId} ${changeId}`;

/**
 * Makes "a disabled, deleted or expired key stops working on the very next request,
 * on every process" true without a database read per request. Every key change is
 * announced by NOTIFY in the changing transaction; each live process drops its cached
 * copy and acknowledges; the change's author returns only once every live process
 * (per the registry's heartbeats) has acknowledged, or after a timeout for the dead.
 */
export class KeyChangeSync {
  readonly #db: Database;
  readonly #registration: ProcessRegistration | undefined;
  readonly #onChange: (lookupId: string | typeof LOST_NOTIFICATIONS) => void;
  readonly #acks = new Map<string, Set<string>>();
  readonly #waiters = new Set<() => void>();
  readonly #unsubscribes: Array<() => Promise<void>> = [];

  constructor(
    db: Database,
    registration: ProcessRegistration | undefined,
    onChange: (lookupId: string | typeof LOST_NOTIFICATIONS) => void,
  ) {
    this.#db = db;
    this.#registration = registration;
    this.#onChange = onChange;
  }

  async start(): Promise<void> {
    this.#unsubscribes.push(
      await this.#db.listen(KEY_CHANGES_CHANNEL, (payload) => {
        const [lookupId, changeId] = payload.split(' ');
        if (lookupId) this.#onChange(lookupId);
        if (changeId && this.#registration) {
          this.#db
            .query('SELECT pg_notify($1, $2)', [KEY_ACKS_CHANNEL, `${changeId} ${this.#registration.id}`])
            .catch(() => undefined);
        }
      }),
    );
    this.#unsubscribes.push(
      await this.#db.listen(KEY_ACKS_CHANNEL, (payload) => {
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
  changedHere(lookupId: string): void {
    this.#onChange(lookupId);
  }

  async stop(): Promise<void> {
    for (const unsubscribe of this.#unsubscribes.splice(0)) await unsubscribe();
  }

  /** Resolves once every other live process has dropped the changed key (or timeoutMs passed). */
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
