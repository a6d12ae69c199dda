import type { EmbeddingResponse } from '../../providers/adapter.ts';

/** `:embedContent` answers one embedding; `:batchEmbedContents` one per request, in order. */
export function renderEmbedContent(response: EmbeddingResponse): { embedding: { values: number[] } } {
  return { embedding: { values: response.embeddings[0] ?? [] } };
}

export function renderBatchEmbedContents(response: EmbeddingResponse): { embeddings: Array<{ values: number[] }> } {
  return { embeddings: response.embeddings.map((values) => ({ values })) };
}
