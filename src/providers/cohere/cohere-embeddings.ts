/** Canonical EmbeddingRequest ↔ Cohere's v2 Embed API (`POST /v2/embed`). */
import { estimateTextTokens } from '../../core/estimate-text-tokens.ts';
import type { EmbeddingRequest, EmbeddingResponse, ProviderConfig } from '../adapter.ts';
import { postJson, type UpstreamCall } from '../http/upstream-client.ts';
import { UpstreamError } from '../upstream-error.ts';
import { type CohereEmbedBody, CohereEmbedResponseSchema, type CohereInputType } from './cohere-wire-schemas.ts';

/** The embed path after the base URL (`https://api.cohere.com`). */
export const COHERE_EMBED_PATH = '/v2/embed';

/** Cohere takes at most 96 texts a call; more go in sequential calls. */
const MAX_TEXTS_PER_CALL = 96;

/**
 * Gemini's task types (the Gemini front-end's `taskType`, the knowledge embedder's query
 * and document kinds) as Cohere's input types; search_document when none is given,
 * because an OpenAI-format caller has no field for it and indexing is the common use.
 */
const INPUT_TYPES: Readonly<Record<string, CohereInputType>> = {
  RETRIEVAL_QUERY: 'search_query',
  CODE_RETRIEVAL_QUERY: 'search_query',
  QUESTION_ANSWERING: 'search_query',
  FACT_VERIFICATION: 'search_query',
  RETRIEVAL_DOCUMENT: 'search_document',
  CLASSIFICATION: 'classification',
  CLUSTERING: 'clustering',
};

export const cohereInputType = (taskType: string | undefined): CohereInputType => (taskType === undefined ? undefined : INPUT_TYPES[taskType]) ?? 'search_document';

/** Embeds `request.input` in calls of at most 96 texts; `dimensions` maps to `output_dimension` (embed-v4 and newer). */
export async function embedWithCohere(config: ProviderConfig, request: EmbeddingRequest, call: (path: string) => UpstreamCall): Promise<EmbeddingResponse> {
  const embeddings: number[][] = [];
  let inputTokens = 0;
  for (let start = 0; start < request.input.length; start += MAX_TEXTS_PER_CALL) {
    const texts = request.input.slice(start, start + MAX_TEXTS_PER_CALL);
    const body: CohereEmbedBody = {
      model: request.model,
      texts,
      input_type: cohereInputType(request.taskType),
      embedding_types: ['float'],
      ...(request.dimensions === undefined ? {} : { output_dimension: request.dimensions }),
    };
    const response = await postJson(config, { body, ...call(COHERE_EMBED_PATH) });
    const parsed = CohereEmbedResponseSchema.safeParse(response.body);
    if (!parsed.success) throw unexpected('Cohere returned an unexpected embedding body', 'upstream returned an unexpected response body');
    const vectors = parsed.data.embeddings.float;
    if (vectors.length !== texts.length) throw unexpected(`Cohere returned ${vectors.length} embeddings for ${texts.length} texts`, 'upstream returned the wrong number of embeddings');
    embeddings.push(...vectors);
    // Billing needs a number even if a proxy in between drops `meta`: then an estimate.
    inputTokens += parsed.data.meta?.billed_units?.input_tokens ?? texts.reduce((sum, text) => sum + estimateTextTokens(text), 0);
  }
  return { model: request.model, embeddings, usage: { inputTokens } };
}

const unexpected = (message: string, upstreamMessage: string) => new UpstreamError(message, { status: 502, retryable: false, upstreamMessage });
