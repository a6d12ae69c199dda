import { describe, expect, it } from 'vitest';
import { atxHeading, firstMarkdownHeading } from '../../../src/knowledge/markdown-heading.ts';
import { splitDocument } from '../../../src/knowledge/split-documents.ts';

describe('atxHeading', () => {
  it('reads levels, closing hashes and indentation as CommonMark does', () => {
    expect(atxHeading('## Refunds ##')).toEqual({ level: 2, text: 'Refunds' });
    expect(atxHeading('   # Indented')).toEqual({ level: 1, text: 'Indented' });
    expect(atxHeading('# C#')).toEqual({ level: 1, text: 'C' });
    expect(atxHeading('#hashtag')).toBeUndefined();
    expect(atxHeading('####### seven')).toBeUndefined();
    expect(atxHeading('    # four spaces is code')).toBeUndefined();
  });

  it('finds the first unindented heading of a document', () => {
    expect(firstMarkdownHeading('intro #1\n\n## Setting up\ntext')).toBe('Setting up');
    expect(firstMarkdownHeading('no heading here')).toBeUndefined();
  });

  it('reads a heading line with a long run of spaces in linear time (the regular expression took 17 s for 2 kB)', async () => {
    const line = `# a${' '.repeat(50_000)}x`;
    const started = performance.now();
    expect(atxHeading(line)?.text).toMatch(/^a +x$/);
    expect(firstMarkdownHeading(line)).toMatch(/^a +x$/);
    const chunks = await splitDocument({ text: `${line}\n\nbody`, format: 'markdown', title: 'T' });
    expect(chunks.length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
