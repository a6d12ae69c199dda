import type { Embedder, EmbeddingKind } from '../../src/knowledge/embedder.ts';

/**
 * A deterministic, local stand-in for an embedding model: signed feature hashing of
 * words (crudely stemmed, stop words dropped) and character trigrams into a fixed
 * number of dimensions, L2-normalised. It is lexical, not semantic: it rewards shared
 * words and word fragments, never synonyms. Good enough to exercise the real vector
 * path (pgvector, HNSW, fusion) without a network; it says nothing about how a real
 * model would score.
 */
export type LexicalEmbedder = Embedder & {
  /** Texts embedded so far, per kind: lets tests assert what incremental indexing skipped. */
  readonly counts: Record<EmbeddingKind, number>;
  readonly calls: number;
  reset(): void;
};

const STOP_WORDS = new Set('a an and are as at be by can do does for from how i if in is it my of on or our so that the this to was what when where which who why will with you your'.split(' '));

export function createLexicalEmbedder(options: { dimensions?: number; modelId?: string } = {}): LexicalEmbedder {
  const dimensions = options.dimensions ?? 256;
  const counts: Record<EmbeddingKind, number> = { document: 0, query: 0 };
  let calls = 0;
  return {
    modelId: options.modelId ?? `test/lexical-${dimensions}`,
    dimensions,
    get counts() {
      return counts;
    },
    get calls() {
      return calls;
    },
    reset() {
      counts.document = 0;
      counts.query = 0;
      calls = 0;
    },
    async embed(texts, kind) {
      calls += 1;
      counts[kind] += texts.length;
      return texts.map((text) => embedText(text, dimensions));
    },
  };
}

function embedText(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature);
    const index = hash % dimensions;
    vector[index] = (vector[index] ?? 0) + ((hash >>> 31) & 1 ? weight : -weight);
  };
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => !STOP_WORDS.has(word)).map(stem);
  for (const word of words) {
    add(`w:${word}`, 1);
    const padded = `_${word}_`;
    for (let i = 0; i + 3 <= padded.length; i += 1) add(`t:${padded.slice(i, i + 3)}`, 0.3);
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

/** Just enough stemming that "returns", "returned" and "returning" share a feature. */
function stem(word: string): string {
  return word.replace(/(ing|ed|es|s)$/, '').replace(/(.)\1$/, '$1') || word;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
