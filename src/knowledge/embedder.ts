/**
 * What the knowledge subsystem needs from an embedding model. The production
 * implementation calls the gateway pipeline (so embeddings are billed like any other
 * model call); tests use a deterministic local one. `kind` lets models that embed
 * queries and documents differently (e.g. instruction prefixes) do so.
 */
export type EmbeddingKind = 'document' | 'query';

export type Embedder = {
  /** Catalog id of the model, e.g. `openai/text-embedding-3-small`; part of every chunk hash. */
  modelId: string;
  /** Expected vector length, when known up front; checked against what `embed` returns. */
  dimensions?: number;
  embed(texts: string[], kind: EmbeddingKind): Promise<number[][]>;
};

/** pgvector's text input format; both engines accept it as a `$n::vector` parameter. */
export function toVectorLiteral(vector: readonly number[]): string {
  for (const value of vector) {
    if (!Number.isFinite(value)) throw new Error('embedding contains a non-finite value');
  }
  return `[${vector.join(',')}]`;
}

/**
 * pgvector's binary input format (vector_recv): the dimensions and an unused int16, then
 * each value as a float4, all big-endian. A query vector sent so skips the engine's parse
 * of its text, which took PGlite about 0.3 ms at 256 dimensions (the statement's whole
 * round trip is 0.1 ms). Not for halfvec, whose binary values are float2.
 */
export function toVectorBinary(vector: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(4 + 4 * vector.length);
  const view = new DataView(bytes.buffer);
  view.setInt16(0, vector.length);
  vector.forEach((value, index) => {
    if (!Number.isFinite(value)) throw new Error('embedding contains a non-finite value');
    view.setFloat32(4 + 4 * index, value);
  });
  return bytes;
}

/** Embeds and checks the answer's shape, so a misbehaving model fails loudly here, not in SQL. */
export async function embedChecked(embedder: Embedder, texts: string[], kind: EmbeddingKind): Promise<number[][]> {
  if (texts.length === 0) return [];
  const vectors = await embedder.embed(texts, kind);
  if (vectors.length !== texts.length) {
    throw new Error(`embedder ${embedder.modelId} returned ${vectors.length} vectors for ${texts.length} texts`);
  }
  const expected = embedder.dimensions ?? vectors[0]?.length ?? 0;
  for (const vector of vectors) {
    if (vector.length === 0 || vector.length !== expected) {
      throw new Error(`embedder ${embedder.modelId} returned a vector of ${vector.length} dimensions, expected ${expected}`);
    }
  }
  return vectors;
}
