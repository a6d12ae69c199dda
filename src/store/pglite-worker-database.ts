import { mkdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { lockDataDir } from './data-dir-lock.ts';
import { PRIVATE_FOLDER_MODE } from './store-folder-modes.ts';
import type { Database, NotificationHandler, Queryable, QueryOptions, QueryResult } from './database.ts';
import type { PgliteEngineSettings } from './pglite-database.ts';
import { deserializeError, type PgliteWorkerData, type WorkerCall, type WorkerMessage } from './pglite-worker-protocol.ts';
import { StoreDurabilityCounters, type StoreDurabilityCounts } from './store-durability-counters.ts';
import { threadCpuSeconds } from './thread-cpu.ts';

/**
 * The embedded store, PGlite, on a thread of its own (pglite-worker.ts). The WASM engine's
 * start (about a second) runs while the server's modules load, and its statements (the
 * settlement batches above all) run beside request handling instead of on its thread.
 * Transactions, prepared statements and notifications behave as on the engine itself:
 * the worker runs the same PgliteDatabase.
 */
export async function openPgliteDatabase(dataDir: string, settings: PgliteEngineSettings = {}): Promise<Database> {
  const inMemory = dataDir.startsWith('memory://');
  if (!inMemory) mkdirSync(dataDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  // Before PGlite touches the files: a second process must get a sentence, not a WASM abort.
  const release = inMemory ? () => undefined : lockDataDir(dataDir);
  const counters = new StoreDurabilityCounters();
  const worker = new Worker(workerScript(), { workerData: { dataDir, settings, counters: counters.buffer } satisfies PgliteWorkerData });
  try {
    const { cpuFile } = await started(worker);
    return new PgliteWorkerDatabase(worker, release, cpuFile, counters);
  } catch (error) {
    await worker.terminate();
    release();
    throw error;
  }
}

/** The compiled worker beside the compiled server; from source, its tsx bootstrap. */
const workerScript = (): URL => (import.meta.url.endsWith('.ts') ? new URL('./pglite-worker-boot.mjs', import.meta.url) : new URL('./pglite-worker.js', import.meta.url));

/** Resolves with the worker's ready message once it has opened the engine; rejects with its error, or if the thread ends first. */
function started(worker: Worker): Promise<{ cpuFile?: string }> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`the embedded database's thread exited (code ${code}) before it opened the store`));
    const onMessage = (message: WorkerMessage) => {
      if (message.kind !== 'ready' && message.kind !== 'failed') return;
      worker.off('message', onMessage).off('error', reject).off('exit', onExit);
      if (message.kind === 'ready') resolve(message);
      else reject(deserializeError(message.error));
    };
    worker.on('message', onMessage).once('error', reject).once('exit', onExit);
  });
}

type Pending = { resolve(value: unknown): void; reject(error: Error): void };

class PgliteWorkerDatabase implements Database {
  readonly engine = 'pglite' as const;
  readonly #worker: Worker;
  readonly #release: () => void;
  readonly #cpuFile: string | undefined;
  readonly #counters: StoreDurabilityCounters;
  readonly #pending = new Map<number, Pending>();
  readonly #handlers = new Map<number, NotificationHandler>();
  #lastId = 0;
  /** Set once the thread is gone: every later call fails with it. */
  #stopped: Error | undefined;
  #closing: Promise<void> | undefined;

  constructor(worker: Worker, release: () => void, cpuFile: string | undefined, counters: StoreDurabilityCounters) {
    this.#worker = worker;
    this.#release = release;
    this.#cpuFile = cpuFile;
    this.#counters = counters;
    // An idle engine does not keep the process alive (the in-thread engine did not either);
    // a call in flight does (see #call).
    worker.unref();
    worker.on('message', (message: WorkerMessage) => this.#receive(message));
    worker.on('error', (error) => this.#stop(error));
    worker.on('exit', (code) => this.#stop(new Error(`the embedded database's thread exited (code ${code})`)));
  }

  engineCpuSeconds(): number | undefined {
    return this.#cpuFile === undefined || this.#stopped ? undefined : threadCpuSeconds(this.#cpuFile);
  }

  durabilityCounts(): StoreDurabilityCounts {
    return this.#counters.read();
  }

  query<Row>(sql: string, params: readonly unknown[] = [], options?: QueryOptions): Promise<QueryResult<Row>> {
    return this.#call({ op: 'query', sql, params, ...(options?.prepareAs && { prepareAs: options.prepareAs }) }) as Promise<QueryResult<Row>>;
  }

  async exec(sql: string): Promise<void> {
    await this.#call({ op: 'exec', sql });
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const tx = (await this.#call({ op: 'begin' })) as number;
    let result: T;
    try {
      result = await work({
        query: <Row>(sql: string, params: readonly unknown[] = []) => this.#call({ op: 'query', sql, params, tx }) as Promise<QueryResult<Row>>,
        exec: async (sql: string) => {
          await this.#call({ op: 'exec', sql, tx });
        },
      });
    } catch (error) {
      await this.#call({ op: 'end', tx, commit: false }).catch(() => undefined);
      throw error;
    }
    await this.#call({ op: 'end', tx, commit: true });
    return result;
  }

  async listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>> {
    const listener = (await this.#call({ op: 'listen', channel })) as number;
    this.#handlers.set(listener, handler);
    return async () => {
      this.#handlers.delete(listener);
      if (!this.#stopped) await this.#call({ op: 'unlisten', listener });
    };
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        if (!this.#stopped) await this.#call({ op: 'close' });
      } finally {
        await this.#worker.terminate();
        this.#release();
      }
    })();
    return this.#closing;
  }

  #call(call: WorkerCall): Promise<unknown> {
    if (this.#stopped) return Promise.reject(this.#stopped);
    const id = ++this.#lastId;
    try {
      // Parameters cross by structured clone: one that cannot (a function) fails here, as a bad statement would.
      // The id first: a literal opening with a spread gets a new hidden class per message in Node 20's V8.
      this.#worker.postMessage({ id, ...call });
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#pending.size === 0) this.#worker.ref();
    return new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject }));
  }

  #receive(message: WorkerMessage): void {
    if (message.kind === 'notification') {
      this.#handlers.get(message.listener)?.(message.payload);
      return;
    }
    if (message.kind !== 'reply' && message.kind !== 'error') return;
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (this.#pending.size === 0) this.#worker.unref();
    if (message.kind === 'reply') pending.resolve(message.value);
    else pending.reject(deserializeError(message.error));
  }

  /** The thread ended (closed, or crashed in the engine): what waits fails as an outage would. */
  #stop(cause: Error): void {
    if (this.#stopped) return;
    // 57P02 crash_shutdown: callers treat it as the database being unreachable (503), not as a bad statement.
    this.#stopped = Object.assign(new Error(`the embedded database stopped: ${cause.message}`, { cause }), { code: '57P02' });
    for (const pending of this.#pending.values()) pending.reject(this.#stopped);
    this.#pending.clear();
  }
}
