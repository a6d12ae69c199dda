import { computeEmbeddingCost } from '../catalog/costs.ts';
import type { CallContext } from '../pipeline/call-context.ts';
import { requireMethod, type UnaryPipeline } from '../pipeline/unary-pipeline.ts';
import type { Embedder, EmbeddingKind } from './embedder.ts';
import { overlay } from '../core/overlay.ts';

/**
 * The production Embedder: every embedding call goes through the gateway's pipeline,
 * so knowledge indexing and query-time retrieval are billed and logged like any
 * `/v1/embeddings` call, on the key (or account) they run for. The reservation bounds
 * tokens by UTF-8 bytes, which no tokenizer exceeds.
 */
export function pipelineEmbedder(unary: UnaryPipeline, context: CallContext, modelId: string): Embedder {
  return {
    modelId,
    async embed(texts: string[], kind: EmbeddingKind): Promise<number[][]> {
      const bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
      const result = await unary.run(overlay(context, { endpoint: kind === 'query' ? 'agents.knowledge.query' : 'knowledge.index' }), {
        model: modelId,
        capability: 'embeddings',
        worstCase: (model) => computeEmbeddingCost(model, bytes),
        call: (adapter, model, signal) =>
          requireMethod(adapter, 'embed', model)({ model: model.upstreamName, input: texts, taskType: kind === 'query' ? 'RETRIEVAL_QUERY' : 'RETRIEVAL_DOCUMENT' }, { signal }),
        meter: (response, model) => ({ costMicros: computeEmbeddingCost(model, response.usage.inputTokens), usage: { inputTokens: response.usage.inputTokens, outputTokens: 0 } }),
      });
      return result.value.embeddings;
    },
  };
}
