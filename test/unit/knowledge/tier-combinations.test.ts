import { describe, expect, it } from 'vitest';
import { tierCombinations } from '../../../src/knowledge/full-text-search.ts';

const quote = (lexeme: string) => `'${lexeme}'`;
const tiers = (lexemes: string[], shares: Record<string, number>) => tierCombinations(lexemes, lexemes.map(quote), new Map(Object.entries(shares)));

describe('the word combinations each full-text tier tries', () => {
  it('tries the rarest combinations first: every word, then triples, pairs and single words', () => {
    const [every, triples, pairs, singles] = tiers(['fee', 'restock', 'devic'], { fee: 0.4, devic: 0.1 });
    expect(every).toEqual(["'fee' & 'restock' & 'devic'"]);
    expect(triples).toEqual(["'fee' & 'restock' & 'devic'"]);
    // restock is missing from the statistics: rarer than every listed word.
    expect(pairs).toEqual(["'fee' & 'restock'", "'restock' & 'devic'", "'fee' & 'devic'"]);
    expect(singles).toEqual(["'restock'", "'devic'", "'fee'"]);
  });

  it('keeps question order among equally rare combinations (no statistics yet)', () => {
    const [, , pairs, singles] = tiers(['refund', 'polici', 'item'], {});
    expect(pairs).toEqual(["'refund' & 'polici'", "'refund' & 'item'", "'polici' & 'item'"]);
    expect(singles).toEqual(["'refund'", "'polici'", "'item'"]);
  });

  it('leaves a tier empty when the question has too few words for it', () => {
    expect(tiers(['fee'], { fee: 0.5 })).toEqual([["'fee'"], [], [], ["'fee'"]]);
  });

  it('tries at most ten combinations per tier, the rarest, of the 120 triples of ten words', () => {
    const words = Array.from({ length: 10 }, (_, index) => `w${index}`);
    const shares = Object.fromEntries(words.map((word, index) => [word, (index + 1) / 20]));
    const [, triples, pairs, singles] = tiers(words, shares);
    expect(triples).toHaveLength(10);
    expect(triples?.[0]).toBe("'w0' & 'w1' & 'w2'");
    expect(pairs).toHaveLength(10);
    expect(pairs?.[0]).toBe("'w0' & 'w1'");
    expect(singles).toEqual(words.map(quote));
  });
});
