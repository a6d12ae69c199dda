/**
 * The wire messages that run a prepared statement on PGlite (pglite-prepared.ts): Bind (the
 * unnamed portal, the statement, its values, text results), Describe of the portal, Execute
 * and Sync, written together into one buffer that is kept and written again for the next run.
 *
 * Why not PGlite's own serializers: they build Bind's values in a buffer that grows by a
 * copy, copy it out, build Bind around that copy the same way, copy it out, and the four
 * messages were then joined by one more copy: about five times Bind's size in ArrayBuffers
 * per run, and a settlement batch of 100 usage rows makes Bind about 40 kB. V8 counts such
 * memory against the heap limit of the thread that allocated it: on the engine's thread,
 * whose own heap is about 12 MB, it started a full garbage collection about every quarter of
 * a second under the gateway's load (4-15 ms of the thread's time each).
 *
 * The message is consumed at once: PGlite copies it into the engine while its call runs,
 * before that call first waits, so the view handed out is written again only by a later run.
 */
import { ScratchBuffer } from './scratch-buffer.ts';

/** Describe the unnamed portal, Execute it with no row limit, Sync. */
const TAIL = [0x44, 0, 0, 0, 6, 0x50, 0, 0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4];
const BIND = 0x42;
const TEXT = 0;
const BINARY = 1;

export type RunValue = string | Uint8Array | null;

export class PreparedRunMessage {
  /** A run larger than 1 MB is written into a buffer of its own, so the one kept stays small. */
  readonly #scratch = new ScratchBuffer(16 * 1024, 1024 * 1024);
  readonly #encoder = new TextEncoder();

  /** The four messages for one run of `statement` with `values` (text, bytes sent as binary, or null). */
  write(statement: string, values: readonly RunValue[]): Uint8Array {
    const bytes = this.#scratch.atLeast(upperBound(statement, values));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    bytes[0] = BIND;
    // The length goes at 1 once known; the unnamed portal is an empty string.
    let at = 5;
    bytes[at++] = 0;
    at = this.#cString(bytes, statement, at);
    view.setInt16(at, values.length);
    at += 2;
    for (const value of values) {
      view.setInt16(at, value instanceof Uint8Array ? BINARY : TEXT);
      at += 2;
    }
    view.setInt16(at, values.length);
    at += 2;
    for (const value of values) {
      if (value === null) {
        view.setInt32(at, -1);
        at += 4;
      } else if (value instanceof Uint8Array) {
        view.setInt32(at, value.byteLength);
        bytes.set(value, at + 4);
        at += 4 + value.byteLength;
      } else {
        const written = this.#encoder.encodeInto(value, bytes.subarray(at + 4)).written;
        view.setInt32(at, written);
        at += 4 + written;
      }
    }
    // No result format codes: every column comes as text.
    view.setInt16(at, 0);
    at += 2;
    view.setInt32(1, at - 1);
    bytes.set(TAIL, at);
    return bytes.subarray(0, at + TAIL.length);
  }

  #cString(bytes: Uint8Array, text: string, at: number): number {
    const written = this.#encoder.encodeInto(text, bytes.subarray(at)).written;
    bytes[at + written] = 0;
    return at + written + 1;
  }
}

/** At most the bytes a run takes: UTF-8 needs at most three bytes per UTF-16 unit. */
function upperBound(statement: string, values: readonly RunValue[]): number {
  let size = 5 + 1 + 3 * statement.length + 1 + 2 + 2 + 2 + TAIL.length;
  for (const value of values) {
    size += 2 + 4;
    if (value instanceof Uint8Array) size += value.byteLength;
    else if (value !== null) size += 3 * value.length;
  }
  return size;
}
