import { describe, expect, it } from 'vitest';
import { estimateTextTokens, TextTokenEstimate } from '../../../src/core/estimate-text-tokens.ts';

describe('estimateTextTokens', () => {
  it('counts about four characters a token in English', () => {
    expect(estimateTextTokens('The returns policy is thirty days.')).toBe(9);
    expect(estimateTextTokens('')).toBe(0);
  });

  it('counts a Han character, kana or Hangul syllable as a token each', () => {
    expect(estimateTextTokens('退货政策')).toBe(4);
    expect(estimateTextTokens('ひらがなカタカナ')).toBe(8);
    expect(estimateTextTokens('환불정책')).toBe(4);
    // Full-width punctuation is CJK too; the Latin part is four characters a token.
    expect(estimateTextTokens('价格是 100 USD。')).toBe(4 + 2);
  });

  it('counts a character outside the Basic Multilingual Plane (a surrogate pair) once', () => {
    expect(estimateTextTokens('𠮷野家')).toBe(3);
  });

  it('gives the same estimate for a text streamed in pieces', () => {
    const text = 'Refunds: 退货政策 takes 30 days — 환불 정책.';
    const streamed = new TextTokenEstimate();
    for (const piece of ['Refunds: 退', '货政策 takes 3', '0 days — 환불', ' 정책.']) streamed.add(piece);
    expect(streamed.tokens).toBe(estimateTextTokens(text));
  });
});
