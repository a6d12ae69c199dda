/**
 * The embedded engine's own thread: opens PGlite in `workerData.dataDir` with
 * `workerData.settings` and answers the requests of PgliteWorkerDatabase
 * (pglite-worker-database.ts). Off the server's thread,
 * the WASM engine's start overlaps the server's and its statements run beside the
 * requests instead of between them.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import type { Database, Queryable } from './database.ts';
import { openPgliteEngine } from './pglite-database.ts';
import { type PgliteWorkerData, serializeError, type WorkerMessage, type WorkerRequest } from './pglite-worker-protocol.ts';
import { StoreDurabilityCounters } from './store-durability-counters.ts';
import { ownThreadCpuFile } from './thread-cpu.ts';

type OpenTransaction = { tx: Queryable; finish(commit: boolean): void; done: Promise<unknown> };

/** Thrown inside PGlite's transaction callback to make it roll back. */
const ROLLBACK = Symbol('rollback');

function serve(db: Database, port: MessagePort): void {
  const send = (message: WorkerMessage) => port.postMessage(message);
  const transactions = new Map<number, OpenTransaction>();
  const listeners = new Map<number, () => Promise<void>>();
  let lastId = 0;

  /** Opens a transaction and resolves with its id once PGlite has begun it (after any other open one). */
  const begin = (): Promise<number> => {
    const id = ++lastId;
    return new Promise((opened, failed) => {
      let finish: (commit: boolean) => void = () => undefined;
      const decided = new Promise<boolean>((resolve) => (finish = resolve));
      const done = db.transaction(async (tx) => {
        transactions.set(id, { tx, finish, done });
        opened(id);
        if (!(await decided)) throw ROLLBACK;
      });
      // A BEGIN that failed never reached the callback: the caller hears of it here.
      done.catch(failed);
    });
  };

  const end = async (id: number, commit: boolean): Promise<void> => {
    const open = transactions.get(id);
    if (!open) throw new Error(`no open transaction ${id}`);
    transactions.delete(id);
    open.finish(commit);
    try {
      await open.done;
    } catch (error) {
      if (error !== ROLLBACK) throw error;
    }
  };

  const target = (tx: number | undefined): Queryable => {
    if (tx === undefined) return db;
    const open = transactions.get(tx);
    if (!open) throw new Error(`no open transaction ${tx}`);
    return open.tx;
  };

  const handle = async (request: WorkerRequest): Promise<unknown> => {
    switch (request.op) {
      case 'query':
        // Inside a transaction a statement is never prepared (see PgliteDatabase.transaction).
        return target(request.tx).query(request.sql, request.params, request.prepareAs && request.tx === undefined ? { prepareAs: request.prepareAs } : undefined);
      case 'exec':
        return target(request.tx).exec(request.sql);
      case 'begin':
        return begin();
      case 'end':
        return end(request.tx, request.commit);
      case 'listen': {
        const id = ++lastId;
        listeners.set(id, await db.listen(request.channel, (payload) => send({ kind: 'notification', listener: id, payload })));
        return id;
      }
      case 'unlisten': {
        const unlisten = listeners.get(request.listener);
        listeners.delete(request.listener);
        await unlisten?.();
        return undefined;
      }
      case 'close':
        await db.close();
        // Nothing more comes: the thread ends once this reply is out.
        setImmediate(() => port.close());
        return undefined;
    }
  };

  port.on('message', (request: WorkerRequest) => {
    handle(request).then(
      (value) => send({ kind: 'reply', id: request.id, value }),
      (error: unknown) => send({ kind: 'error', id: request.id, error: serializeError(error) }),
    );
  });
  const cpuFile = ownThreadCpuFile();
  send(cpuFile === undefined ? { kind: 'ready' } : { kind: 'ready', cpuFile });
}

if (!parentPort) throw new Error('pglite-worker.ts runs as a worker thread');
const port = parentPort;
// A timer keeps this thread's event loop alive while the engine opens. Opening is promises
// over file reads; at a moment with nothing else pending, Node's loop runs out and, before
// it looks again, waits for every background task of V8's platform to finish, here the
// optimising compiles of the engine's WASM, which just started: the thread then answered
// nothing for about 0.2 s after it said it was ready, and the server's first query waited.
// Once serving, the port's listener keeps the loop alive.
const keepAlive = setInterval(() => undefined, 60_000);
try {
  const { dataDir, settings, counters } = workerData as PgliteWorkerData;
  serve(await openPgliteEngine(dataDir, settings, undefined, new StoreDurabilityCounters(counters)), port);
} catch (error) {
  // The opener reports it; closing the port ends this thread.
  port.postMessage({ kind: 'failed', error: serializeError(error) } satisfies WorkerMessage);
  port.close();
} finally {
  clearInterval(keepAlive);
}
