import { describe, expect, it } from 'vitest';
import { atxHeading, firstMarkdownHeading } from '../../../src/knowledge/markdown-heading.ts';
import { splitDocument } from '../../../src/knowledge/split-documents.ts';
import { countedText } from '../../support/counted-text.ts';

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

  it('reads a heading line with a long run of spaces in one pass, never through a regular expression over the line', async () => {
    const line = `# a${' '.repeat(50_000)}x`;
    // A whole read is what a regular expression over the line needs: refused, so a backtracking one fails here at once.
    const budget = { steps: 2 * line.length, chars: 3 * line.length, wholeReads: 0 };
    const heading = countedText(line, budget);
    expect(atxHeading(heading.text)?.text).toMatch(/^a +x$/);
    expect(heading.counts.steps).toBeLessThan(10);
    expect(heading.counts.chars).toBeLessThanOrEqual(line.length);
    const title = countedText(line, budget);
    expect(firstMarkdownHeading(title.text)).toMatch(/^a +x$/);
    expect(title.counts.chars).toBeLessThanOrEqual(2 * line.length + 2);
    const chunks = await splitDocument({ text: `${line}\n\nbody`, format: 'markdown', title: 'T' });
    expect(chunks.map((chunk) => chunk.content)).toContain('body');
  });
});
