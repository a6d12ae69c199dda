/**
 * An array of rows of a composite type in PostgreSQL's binary format (array_recv of
 * record_recv), for a parameter such as `$8::usage_row[]` sent as bytes. Both drivers
 * send a Buffer parameter in binary: node-postgres's and PGlite's protocol writers.
 *
 * Why binary: a settlement batch sent its usage rows as one text array per column, and on
 * the embedded engine the `unnest` of 25 arrays and the parsing of each element were
 * about a third of each row's work (20 of 50 µs per row at 200 rows). One array of rows
 * needs no text parsing and one function scan: 9 µs per row for the same unnest.
 *
 * The engine checks every column's type id against the composite's, so a row that does not
 * fit the type fails the statement; so does a value the column cannot hold, checked here
 * (a fraction for an integer, a malformed uuid), as the text forms failed in the engine.
 */
import { ScratchBuffer } from './scratch-buffer.ts';

export type BinaryColumnType = 'text' | 'uuid' | 'integer' | 'bigint' | 'boolean' | 'jsonb' | 'timestamptz';
export type BinaryValue = string | number | boolean | Date | null;

/** Type ids of the built-in types (fixed in every PostgreSQL: pg_type.dat). */
const TYPE_OIDS: Record<BinaryColumnType, number> = { text: 25, uuid: 2950, integer: 23, bigint: 20, boolean: 16, jsonb: 3802, timestamptz: 1184 };
/** timestamptz counts microseconds from 2000-01-01 UTC. */
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);
const JSONB_VERSION = 1;
const TWO_TO_32 = 2 ** 32;
const ARRAY_HEADER_BYTES = 20;
/** Per row: its length, its column count; per column: type id and length. */
const ROW_OVERHEAD_BYTES = 8;
const COLUMN_OVERHEAD_BYTES = 8;
/** Each hex digit's value by character code; -1 for anything else. */
const HEX_DIGITS = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit += 1) {
  HEX_DIGITS[digit.toString(16).charCodeAt(0)] = digit;
  HEX_DIGITS[digit.toString(16).toUpperCase().charCodeAt(0)] = digit;
}

/*
 * Written for speed: this runs on the server's thread for every usage row. One pass into a
 * buffer large enough for the worst case (3 bytes per UTF-16 unit of text), short ASCII text
 * copied by hand, DataView for the numbers, 64-bit values as two 32-bit halves (no
 * BigInt), uuids decoded digit by digit: the first version (a sizing pass with
 * Buffer.byteLength, BigInt, a regex and slices per uuid) took 7.5 µs per usage row under
 * tsx, this one 2.5.
 */

/**
 * Written into one buffer kept for the purpose (a worst-case buffer per batch was a large
 * allocation each time), and handed out as a copy of exactly its bytes in a buffer of its own:
 * the embedded engine's client posts the parameter to its thread, and posting a view copies
 * the view's whole underlying memory (142 µs for 60 kB inside 180 kB, 22 µs for 60 kB alone).
 */
const scratch = new ScratchBuffer(64 * 1024, 1024 * 1024);

/** `rows` (each in `columns`' order) as one binary array of the composite type `typeOid`. */
export function binaryRecordArray(typeOid: number, columns: readonly BinaryColumnType[], rows: readonly (readonly BinaryValue[])[]): Buffer {
  let size = ARRAY_HEADER_BYTES;
  for (const row of rows) {
    if (row.length !== columns.length) throw new TypeError(`a row has ${row.length} values for ${columns.length} columns`);
    size += ROW_OVERHEAD_BYTES;
    for (let column = 0; column < columns.length; column += 1) size += COLUMN_OVERHEAD_BYTES + maxValueBytes(columns[column] as BinaryColumnType, row[column] ?? null);
  }
  const out = scratch.atLeast(size);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  // An empty array has no dimensions (as PostgreSQL writes '{}').
  view.setInt32(0, rows.length === 0 ? 0 : 1);
  view.setInt32(4, 0); // no NULL rows
  view.setUint32(8, typeOid);
  if (rows.length === 0) return exactCopy(out, 12);
  view.setInt32(12, rows.length);
  view.setInt32(16, 1); // lower bound
  let at = ARRAY_HEADER_BYTES;
  for (const row of rows) {
    const rowStart = at;
    view.setInt32(at + 4, columns.length);
    at += 8;
    for (let column = 0; column < columns.length; column += 1) {
      const type = columns[column] as BinaryColumnType;
      view.setUint32(at, TYPE_OIDS[type]);
      at = writeValue(out, view, at + 4, type, row[column] ?? null);
    }
    view.setInt32(rowStart, at - rowStart - 4);
  }
  return exactCopy(out, at);
}

/** The first `length` bytes of `source`, in a buffer of their own. */
function exactCopy(source: Buffer, length: number): Buffer {
  const copy = Buffer.allocUnsafeSlow(length);
  source.copy(copy, 0, 0, length);
  return copy;
}

/** The most bytes one value's data can take (NULL: none; its length field says -1). */
function maxValueBytes(type: BinaryColumnType, value: BinaryValue): number {
  if (value === null) return 0;
  switch (type) {
    case 'text':
      return 3 * textOf(value).length;
    case 'jsonb':
      return 1 + 3 * textOf(value).length;
    case 'uuid':
      return 16;
    case 'integer':
      return 4;
    case 'bigint':
    case 'timestamptz':
      return 8;
    case 'boolean':
      return 1;
  }
}

/** Writes one value at `at`, its length first; returns the offset after it. */
function writeValue(out: Buffer, view: DataView, at: number, type: BinaryColumnType, value: BinaryValue): number {
  if (value === null) {
    view.setInt32(at, -1);
    return at + 4;
  }
  switch (type) {
    case 'text': {
      const length = writeUtf8(out, at + 4, textOf(value));
      view.setInt32(at, length);
      return at + 4 + length;
    }
    case 'jsonb': {
      out[at + 4] = JSONB_VERSION;
      const length = writeUtf8(out, at + 5, textOf(value));
      view.setInt32(at, 1 + length);
      return at + 5 + length;
    }
    case 'uuid':
      view.setInt32(at, 16);
      writeUuid(out, at + 4, textOf(value));
      return at + 20;
    case 'integer':
      view.setInt32(at, 4);
      view.setInt32(at + 4, integerOf(value, -(2 ** 31), 2 ** 31 - 1));
      return at + 8;
    case 'bigint':
      view.setInt32(at, 8);
      writeInt64(view, at + 4, integerOf(value, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
      return at + 12;
    case 'timestamptz': {
      if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new TypeError(`not a valid date: ${String(value)}`);
      const micros = (value.getTime() - POSTGRES_EPOCH_MS) * 1000;
      // Beyond 2^53 µs (about year 2285) the product is no longer exact: BigInt then.
      if (!Number.isSafeInteger(micros)) view.setBigInt64(at + 4, BigInt(value.getTime() - POSTGRES_EPOCH_MS) * 1000n);
      else writeInt64(view, at + 4, micros);
      view.setInt32(at, 8);
      return at + 12;
    }
    case 'boolean':
      if (typeof value !== 'boolean') throw new TypeError(`not a boolean: ${String(value)}`);
      view.setInt32(at, 1);
      out[at + 4] = value ? 1 : 0;
      return at + 5;
  }
}

/** Text shorter than this that is all ASCII is copied code by code (a Buffer.write call cost more than the copy for ids and model names). */
const SHORT_TEXT = 64;

/** `text` in UTF-8 at `at`; returns its byte length. */
function writeUtf8(out: Buffer, at: number, text: string): number {
  if (text.length < SHORT_TEXT) {
    let index = 0;
    for (; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      if (code >= 0x80) break;
      out[at + index] = code;
    }
    if (index === text.length) return index;
  }
  return out.write(text, at);
}

/** A safe integer as a big-endian two's-complement 64-bit value: high half (signed), low half. */
function writeInt64(view: DataView, at: number, value: number): void {
  const high = Math.floor(value / TWO_TO_32);
  view.setInt32(at, high);
  view.setUint32(at + 4, value - high * TWO_TO_32);
}

/** The 16 bytes of a uuid in its 8-4-4-4-12 hex form (either case). */
function writeUuid(out: Buffer, at: number, text: string): void {
  if (text.length !== 36) throw new TypeError(`not a uuid: ${text.slice(0, 40)}`);
  let index = 0;
  for (let byte = 0; byte < 16; byte += 1) {
    if (index === 8 || index === 13 || index === 18 || index === 23) {
      if (text.charCodeAt(index) !== 0x2d) throw new TypeError(`not a uuid: ${text}`);
      index += 1;
    }
    const high = HEX_DIGITS[text.charCodeAt(index)] ?? -1;
    const low = HEX_DIGITS[text.charCodeAt(index + 1)] ?? -1;
    if (high < 0 || low < 0) throw new TypeError(`not a uuid: ${text}`);
    out[at + byte] = (high << 4) | low;
    index += 2;
  }
}

function textOf(value: BinaryValue): string {
  if (typeof value !== 'string') throw new TypeError(`not text: ${String(value)}`);
  return value;
}

/** A whole number within [min, max]: what the column's text input would have accepted. */
function integerOf(value: BinaryValue, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw new TypeError(`not an integer in range: ${String(value)}`);
  return value;
}
