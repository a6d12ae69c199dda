import { describe, expect, it } from 'vitest';
import { indexProgressWriter } from '../../../src/cli/knowledge-index-output.ts';

const update = (documentsDone: number, documentsTotal = 3, collection = 'handbook') => ({ collection, documentsDone, documentsTotal, chunksEmbedded: documentsDone * 2, chunksReused: 0 });

function capture(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (text: string) => written.push(text) > 0 } };
}

describe('knowledge index progress', () => {
  it('redraws one line in place on a terminal, and ends it', () => {
    const { written, stream } = capture(true);
    const progress = indexProgressWriter(stream);
    for (const done of [0, 1, 2, 3]) progress.write(update(done));
    progress.end();
    expect(written).toHaveLength(5);
    expect(written[3]).toBe('\rhandbook: 3/3 documents, 6 chunks embedded, 0 reused\x1b[K');
    expect(written[4]).toBe('\n');
  });

  it('writes plain lines in a pipe: each collection once when done, and a long one every 5 s', () => {
    const { written, stream } = capture(false);
    let clock = 0;
    const progress = indexProgressWriter(stream, () => clock);
    for (const done of [0, 1, 2]) progress.write(update(done));
    clock = 6_000;
    progress.write(update(2));
    progress.write(update(3));
    progress.write(update(3));
    progress.write(update(1, 1, 'faq'));
    progress.end();
    expect(written).toEqual(['handbook: 2/3 documents, 4 chunks embedded, 0 reused\n', 'handbook: 3/3 documents, 6 chunks embedded, 0 reused\n', 'faq: 1/1 document, 2 chunks embedded, 0 reused\n']);
  });
});
