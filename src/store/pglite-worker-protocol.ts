/**
 * The messages between PgliteWorkerDatabase (the server's thread) and pglite-worker.ts
 * (the thread that owns the WASM engine). Values cross by structured clone: rows, Dates,
 * Uint8Arrays and plain objects arrive as they left.
 */
import type { PgliteEngineSettings } from './pglite-database.ts';

/** What the thread is started with: the store's folder, the engine's settings and the buffer of the counters it keeps (StoreDurabilityCounters). */
export type PgliteWorkerData = { dataDir: string; settings: PgliteEngineSettings; counters: SharedArrayBuffer };

export type WorkerRequest =
  | { id: number; op: 'query'; sql: string; params: readonly unknown[]; prepareAs?: string; tx?: number }
  | { id: number; op: 'exec'; sql: string; tx?: number }
  | { id: number; op: 'begin' }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'listen'; channel: string }
  | { id: number; op: 'unlisten'; listener: number }
  | { id: number; op: 'close' };

/** A request before the client numbers it (the conditional type keeps each request's own fields). */
type WithoutId<Request> = Request extends unknown ? Omit<Request, 'id'> : never;
export type WorkerCall = WithoutId<WorkerRequest>;

export type SerializedError = { name: string; message: string; stack: string | undefined; fields: Record<string, unknown> };

export type WorkerMessage =
  /** `cpuFile`: where the engine thread's CPU time is read (thread-cpu.ts); absent off Linux. */
  | { kind: 'ready'; cpuFile?: string }
  | { kind: 'failed'; error: SerializedError }
  | { kind: 'reply'; id: number; value: unknown }
  | { kind: 'error'; id: number; error: SerializedError }
  | { kind: 'notification'; listener: number; payload: string };

/** An error as data: its message, stack and the fields callers read (`code`, `constraint`…). */
export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), stack: undefined, fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(error)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[name] = value;
  }
  return { name: error.name, message: error.message, stack: error.stack, fields };
}

export function deserializeError(serialized: SerializedError): Error {
  const error = Object.assign(new Error(serialized.message), serialized.fields);
  error.name = serialized.name;
  if (serialized.stack) error.stack = serialized.stack;
  return error;
}
