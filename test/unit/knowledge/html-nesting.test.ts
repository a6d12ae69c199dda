import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../../src/knowledge/html-nesting.ts';

describe('nestsDeeperThan', () => {
  it('counts nested elements, not siblings, void elements or tags inside scripts and comments', () => {
    expect(nestsDeeperThan('<div>'.repeat(11), 10)).toBe(true);
    expect(nestsDeeperThan('<div></div>'.repeat(1_000), 10)).toBe(false);
    expect(nestsDeeperThan(`<ul>${'<li>item'.repeat(1_000)}</ul>`, 10)).toBe(false);
    expect(nestsDeeperThan(`<p>${'<br><img src=x><input/>'.repeat(1_000)}`, 10)).toBe(false);
    expect(nestsDeeperThan(`<script>${'<div>'.repeat(100)}</script><!-- ${'<div>'.repeat(100)} -->`, 10)).toBe(false);
  });

  it('scans 100,000 nested elements and unclosed tags in linear time', () => {
    const started = performance.now();
    expect(nestsDeeperThan(`${'<div>'.repeat(100_000)}x${'</div>'.repeat(100_000)}`, 512)).toBe(true);
    expect(nestsDeeperThan('<a'.repeat(1_000_000), 512)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
