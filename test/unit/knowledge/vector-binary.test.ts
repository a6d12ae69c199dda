import { describe, expect, it } from 'vitest';
import { toVectorBinary } from '../../../src/knowledge/embedder.ts';

describe("pgvector's binary vector format", () => {
  it('writes the dimensions, an unused int16 and big-endian float4 values', () => {
    const bytes = toVectorBinary([1, -2.5, 0.1]);
    const view = new DataView(bytes.buffer);
    expect(bytes.byteLength).toBe(16);
    expect(view.getInt16(0)).toBe(3);
    expect(view.getInt16(2)).toBe(0);
    expect([view.getFloat32(4), view.getFloat32(8), view.getFloat32(12)]).toEqual([1, -2.5, Math.fround(0.1)]);
    expect([...bytes.subarray(4, 8)]).toEqual([0x3f, 0x80, 0, 0]);
  });

  it('refuses a value that is not finite', () => {
    expect(() => toVectorBinary([0, Number.NaN])).toThrow('embedding contains a non-finite value');
    expect(() => toVectorBinary([Number.POSITIVE_INFINITY])).toThrow('embedding contains a non-finite value');
  });
});
