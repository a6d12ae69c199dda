import { describe, expect, it } from 'vitest';
import { chunkHash, embeddingText } from '../../../src/knowledge/knowledge-indexer.ts';
import { markdownSections, splitDocument } from '../../../src/knowledge/split-documents.ts';

describe('markdownSections', () => {
  it('closes a fence only with a fence of the same character and at least its length', () => {
    const fence4 = '`'.repeat(4);
    const fence3 = '`'.repeat(3);
    const sections = markdownSections(
      ['# Doc', `${fence4}md`, fence3, '# inside a longer fence', fence4, '## After', 'text', '~~~', '# tilde fenced', fence3, '# still inside', '~~~~', '# Last', 'end'].join('\n'),
    );
    expect(sections.map((section) => section.headings)).toEqual([['Doc'], ['Doc', 'After'], ['Last']]);
  });

  it('tracks the heading path and ignores # lines inside code fences', () => {
    const sections = markdownSections(['# Guide', 'intro', '## Install', 'steps', '```sh', '# not a heading', '```', '### Linux', 'apt', '## Use', 'run it'].join('\n'));
    expect(sections).toEqual([
      { headings: ['Guide'], body: 'intro' },
      { headings: ['Guide', 'Install'], body: 'steps\n```sh\n# not a heading\n```' },
      { headings: ['Guide', 'Install', 'Linux'], body: 'apt' },
      { headings: ['Guide', 'Use'], body: 'run it' },
    ]);
  });

  it('keeps only real ancestors when levels skip', () => {
    expect(markdownSections('### Deep\na\n# Top\nb\n### Child\nc').map((section) => section.headings)).toEqual([['Deep'], ['Top'], ['Top', 'Child']]);
  });
});

describe('splitDocument', () => {
  const paragraph = (word: string) => `${`${word} `.repeat(60).trim()}.`;

  it('splits long Markdown sections into overlapping chunks that keep their heading and the size limit', async () => {
    const text = `# Handbook\n\n## Returns\n\n${[paragraph('alpha'), paragraph('beta'), paragraph('gamma')].join('\n\n')}\n\n## Shipping\n\nShort.`;
    const chunks = await splitDocument({ text, format: 'markdown', title: 'Handbook' }, { chunkSize: 400, chunkOverlap: 50 });
    expect(chunks.map((chunk) => chunk.chunkIndex)).toEqual(chunks.map((_, index) => index));
    expect(chunks.every((chunk) => chunk.content.length <= 400)).toBe(true);
    const returns = chunks.filter((chunk) => chunk.heading === 'Returns');
    expect(returns.length).toBeGreaterThanOrEqual(3);
    expect(chunks.at(-1)).toEqual({ chunkIndex: chunks.length - 1, heading: 'Shipping', content: 'Short.' });
    // The title heading is not repeated in the path.
    expect(chunks.some((chunk) => chunk.heading?.startsWith('Handbook'))).toBe(false);
  });

  it('splits plain text with the recursive splitter and no heading', async () => {
    const text = [paragraph('one'), paragraph('two'), paragraph('three')].join('\n\n');
    const chunks = await splitDocument({ text, format: 'text', title: 'T' }, { chunkSize: 400, chunkOverlap: 0 });
    expect(chunks.length).toBe(3);
    expect(chunks.every((chunk) => chunk.heading === undefined)).toBe(true);
    expect(chunks.map((chunk) => chunk.content).join('\n\n')).toBe(text);
  });

  it('hashes ignore whitespace layout but not words or the model', () => {
    const a = embeddingText('Title', { heading: 'H', content: 'Refunds take\n5 days.' });
    const b = embeddingText('Title', { heading: 'H', content: 'Refunds  take 5 days.  ' });
    expect(chunkHash(a, 'm1')).toBe(chunkHash(b, 'm1'));
    expect(chunkHash(a, 'm1')).not.toBe(chunkHash(a, 'm2'));
    expect(chunkHash(a, 'm1')).not.toBe(chunkHash(embeddingText('Title', { content: 'Refunds take 6 days.' }), 'm1'));
  });
});
