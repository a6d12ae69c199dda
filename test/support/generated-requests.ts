import { expect } from 'vitest';
import type { z } from 'zod';

/** A small seeded generator, so a failure names a reproducible case. */
export function seededRandom(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
  return { next, pick };
}
export type SeededRandom = ReturnType<typeof seededRandom>;

/** Valid values and near misses for a field. */
export type FieldValues = Record<string, { valid: readonly unknown[]; invalid: readonly unknown[] }>;

/** Sets each field on `built` with probability `rate`, to a valid value 70% of the time. */
export function addFields(rng: SeededRandom, built: Record<string, unknown>, fields: FieldValues, rate: number): void {
  for (const [field, values] of Object.entries(fields)) {
    if (rng.next() >= rate) continue;
    built[field] = values.valid.length > 0 && rng.next() < 0.7 ? rng.pick(values.valid) : rng.pick(values.invalid);
  }
}

/**
 * Holds a hand-written fast path to the schema it shortcuts, over `count` generated
 * requests: whatever the fast path takes (`fast` returns a value), the schema accepts and
 * parses to that same value. Returns how often each path decided, so a test can check
 * both were really exercised.
 */
export function holdToSchema(options: { count: number; generate: () => unknown; fast: (body: unknown) => unknown; schema: z.ZodType }): { plain: number; schemaOnly: number } {
  let plain = 0;
  let schemaOnly = 0;
  for (let index = 0; index < options.count; index += 1) {
    const body = options.generate();
    const parsed = options.schema.safeParse(body);
    const fast = options.fast(body);
    if (fast !== undefined) {
      plain += 1;
      expect(parsed.success, JSON.stringify(body)).toBe(true);
      expect(fast).toEqual(parsed.data);
    } else if (parsed.success) {
      schemaOnly += 1;
    }
  }
  return { plain, schemaOnly };
}
