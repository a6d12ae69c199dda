/** POST /embeddings: canonical EmbeddingRequest ↔ OpenAI embeddings. */
import type { CallOptions, EmbeddingRequest, EmbeddingResponse, ProviderConfig } from '../adapter.ts';
import { postJson } from '../http/upstream-client.ts';
import { parseUpstreamBody } from './parse-upstream-body.ts';
import { openAICall } from './openai-call.ts';
import { OpenAIEmbeddingResponseSchema } from './openai-wire-schemas.ts';

export async function createEmbeddings(config: ProviderConfig, request: EmbeddingRequest, options: CallOptions): Promise<EmbeddingResponse> {
  const body = {
    model: request.model,
    input: request.input,
    // The openai SDK asks for base64 by default; we want plain numbers and so do compatible servers.
    encoding_format: 'float',
    ...(request.dimensions === undefined ? {} : { dimensions: request.dimensions }),
  };
  const response = await postJson(config, { body, ...openAICall(config, '/embeddings', options.signal) });
  const parsed = parseUpstreamBody(OpenAIEmbeddingResponseSchema, response.body, 'embeddings');
  // OpenAI returns data in input order with an index; sort anyway since the index is the contract.
  const ordered = [...parsed.data].sort((left, right) => (left.index ?? 0) - (right.index ?? 0));
  return {
    model: parsed.model ?? request.model,
    embeddings: ordered.map((item) => item.embedding),
    usage: { inputTokens: parsed.usage?.prompt_tokens ?? 0 },
  };
}
