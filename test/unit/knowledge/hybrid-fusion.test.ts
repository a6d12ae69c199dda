import { describe, expect, it } from 'vitest';
import { formatKnowledgeContext } from '../../../src/knowledge/format-knowledge-context.ts';
import { fuseByReciprocalRank } from '../../../src/knowledge/hybrid-search.ts';
import type { ChunkMatch } from '../../../src/knowledge/knowledge-repository.ts';

const match = (id: number): ChunkMatch => ({ id, collection: 'c', path: `${id}.md`, title: null, heading: null, content: `chunk ${id}`, score: 0 });

describe('fuseByReciprocalRank', () => {
  it('ranks a chunk found by both retrievers above chunks found by one', () => {
    const fused = fuseByReciprocalRank([
      [match(1), match(2), match(3)],
      [match(4), match(3), match(5)],
    ]);
    expect(fused.map((entry) => entry.id)).toEqual([3, 1, 4, 2, 5]);
    expect(fused[0]?.fused).toBeCloseTo(1 / 63 + 1 / 62);
    expect(fused[0]?.ranks).toEqual([3, 2]);
    expect(fused[1]?.ranks).toEqual([1, undefined]);
  });

  it('uses k to damp the top ranks', () => {
    const [first] = fuseByReciprocalRank([[match(7)]], 0);
    expect(first?.fused).toBe(1);
  });
});

describe('formatKnowledgeContext', () => {
  it('numbers chunks and names their source', () => {
    const text = formatKnowledgeContext([
      { chunkId: 1, collection: 'handbook', path: 'returns.md', source: 'handbook/returns.md', title: 'Returns', heading: 'Window', content: '30 days.', score: 1 },
    ]);
    expect(text).toContain('[1] source: handbook/returns.md (Returns > Window)\n30 days.');
  });
});
