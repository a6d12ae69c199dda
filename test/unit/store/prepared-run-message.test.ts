import { protocol } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { PreparedRunMessage, type RunValue } from '../../../src/store/prepared-run-message.ts';

/**
 * The run of a prepared statement (src/store/prepared-run-message.ts) must be, byte for
 * byte, what PGlite's own serializers write for Bind (text results), Describe of the
 * portal, Execute and Sync: the engine reads those bytes, and a wrong length or format code
 * would make it misread every value after it.
 */
const bind = (statement: string, values: readonly RunValue[]): Uint8Array =>
  protocol.serialize.bind({ statement, values: values as unknown[], valueMapper: undefined } as Parameters<typeof protocol.serialize.bind>[0]);

function pgliteBytes(statement: string, values: readonly RunValue[]): Uint8Array {
  const parts = [bind(statement, values), protocol.serialize.describe({ type: 'P' }), protocol.serialize.execute({}), protocol.serialize.sync()];
  return Uint8Array.from(parts.flatMap((part) => Array.from(part)));
}

const bytes = (length: number, seed: number): Uint8Array => Uint8Array.from({ length }, (_, index) => (index * 31 + seed) % 256);

describe('the messages of a prepared run', () => {
  it('are PGlite’s bytes for text, binary, null, empty and non-ASCII values', () => {
    const writer = new PreparedRunMessage();
    const cases: [string, RunValue[]][] = [
      ['settlement-fresh-17001', [bytes(700, 1), '[{"id":"k","lease":1}]', '20411', null, '']],
      ['no-parameters', []],
      ['naïve-名前', ['Grüße, 世界 🎉', null, bytes(0, 0), '\u0000 inside']],
      ['one-null', [null]],
    ];
    for (const [statement, values] of cases) {
      expect(Array.from(writer.write(statement, values)), statement).toEqual(Array.from(pgliteBytes(statement, values)));
    }
  });

  it('grows for a run larger than its buffer, and is right again for a small run after it', () => {
    const writer = new PreparedRunMessage();
    const large: RunValue[] = [bytes(200_000, 7), 'x'.repeat(50_000)];
    expect(Array.from(writer.write('large', large))).toEqual(Array.from(pgliteBytes('large', large)));
    // Past the size it keeps: the next run writes into a small buffer again.
    const huge: RunValue[] = [bytes(1_500_000, 3)];
    const hugeMessage = writer.write('huge', huge);
    expect(hugeMessage.byteLength).toBe(pgliteBytes('huge', huge).byteLength);
    const small: RunValue[] = ['1', null];
    expect(Array.from(writer.write('small', small))).toEqual(Array.from(pgliteBytes('small', small)));
    // The huge run's message was not written over by the small one.
    expect(Array.from(hugeMessage.subarray(0, 40))).toEqual(Array.from(pgliteBytes('huge', huge).subarray(0, 40)));
  });

  it('fits text whose UTF-8 is three bytes per character, at the edge of its buffer', () => {
    const writer = new PreparedRunMessage();
    for (const length of [5_000, 5_461, 5_462, 16_384]) {
      const values: RunValue[] = ['€'.repeat(length)];
      expect(Array.from(writer.write('euro', values)), String(length)).toEqual(Array.from(pgliteBytes('euro', values)));
    }
  });
});
