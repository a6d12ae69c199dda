/**
 * A deterministic bag-of-words embedding for fakes at the network edge: each lower-cased
 * word counts once in the dimension its FNV-1a hash picks. Two texts sharing most words
 * are close by cosine, texts sharing none are orthogonal (barring a hash collision), so
 * tests can predict a similarity as shared / sqrt(words of one * words of the other).
 */
export const BAG_OF_WORDS_DIMENSIONS = 1_024;

export function bagOfWordsVector(text: string, dimensions = BAG_OF_WORDS_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? [])) vector[fnv1a(word) % dimensions] = 1;
  return vector;
}

/** The cosine similarity of the texts' bag-of-words vectors. */
export function bagOfWordsSimilarity(a: string, b: string): number {
  const x = bagOfWordsVector(a);
  const y = bagOfWordsVector(b);
  const dot = x.reduce((sum, value, index) => sum + value * (y[index] ?? 0), 0);
  const norm = (v: number[]) => Math.sqrt(v.reduce((sum, value) => sum + value * value, 0));
  return dot / (norm(x) * norm(y));
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
