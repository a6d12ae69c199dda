import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../../src/http/json-nesting-depth.ts';
import { countedText } from '../../support/counted-text.ts';

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

  it('skips a long string with one native search, not a character at a time', () => {
    const json = JSON.stringify({ image: 'A'.repeat(40 * 1024 * 1024) });
    const body = countedText(json, { steps: 100 });
    expect(exceedsJsonDepth(body.text)).toBe(false);
    // The loop reads only the structure around the strings; the searches cover each string once.
    expect(body.counts.steps).toBeLessThan(20);
    expect(body.counts.chars).toBeLessThanOrEqual(json.length);
    expect(body.counts.wholeReads).toBe(0);
  });
});
