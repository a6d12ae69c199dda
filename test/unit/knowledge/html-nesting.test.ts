import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../../src/knowledge/html-nesting.ts';
import { countedText } from '../../support/counted-text.ts';

describe('nestsDeeperThan', () => {
  it('counts nested elements, not siblings, void elements or tags inside scripts and comments', () => {
    expect(nestsDeeperThan('<div>'.repeat(11), 10)).toBe(true);
    expect(nestsDeeperThan('<div></div>'.repeat(1_000), 10)).toBe(false);
    expect(nestsDeeperThan(`<ul>${'<li>item'.repeat(1_000)}</ul>`, 10)).toBe(false);
    expect(nestsDeeperThan(`<p>${'<br><img src=x><input/>'.repeat(1_000)}`, 10)).toBe(false);
    expect(nestsDeeperThan(`<script>${'<div>'.repeat(100)}</script><!-- ${'<div>'.repeat(100)} -->`, 10)).toBe(false);
  });

  it('scans 100,000 nested elements and unclosed tags in linear time: each character read a bounded number of times', () => {
    const nested = `${'<div>'.repeat(100_000)}x${'</div>'.repeat(100_000)}`;
    const deep = countedText(nested, { steps: nested.length, chars: 2 * nested.length, wholeReads: 0 });
    expect(nestsDeeperThan(deep.text, 512)).toBe(true);
    // It stops at the 513th element: the work is that of the first 513 tags, not of the document.
    expect(deep.counts.steps + deep.counts.chars).toBeLessThan(513 * 60);
    const unclosed = '<a'.repeat(1_000_000);
    const open = countedText(unclosed, { steps: unclosed.length, chars: 2 * unclosed.length, wholeReads: 0 });
    expect(nestsDeeperThan(open.text, 512)).toBe(false);
    expect(open.counts.chars).toBeLessThanOrEqual(unclosed.length + 4);
  });
});
