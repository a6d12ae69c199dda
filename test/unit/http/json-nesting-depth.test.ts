import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../../src/http/json-nesting-depth.ts';

describe('exceedsJsonDepth', () => {
  it('accepts nesting up to the limit and refuses one level more, for arrays and objects', () => {
    expect(exceedsJsonDepth('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1))).toBe(true);
    const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    expect(exceedsJsonDepth(objects(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(objects(100_000))).toBe(true);
  });

  it('counts depth, not the number of siblings', () => {
    expect(exceedsJsonDepth(`[${'{},'.repeat(100_000)}{}]`)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const brackets = '['.repeat(MAX_JSON_DEPTH * 2);
    expect(exceedsJsonDepth(JSON.stringify({ text: brackets }))).toBe(false);
    expect(exceedsJsonDepth(JSON.stringify({ text: `say \\"${brackets}\\" and \\\\`, next: brackets }))).toBe(false);
    expect(exceedsJsonDepth(`{"text":"a \\" ${brackets}"}`)).toBe(false);
  });

  it('scans a body that is mostly one long string quickly', () => {
    const body = JSON.stringify({ image: 'A'.repeat(40 * 1024 * 1024) });
    const started = performance.now();
    expect(exceedsJsonDepth(body)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
