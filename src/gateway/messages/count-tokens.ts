import type { ModelRequest } from '../../core/model-types.ts';
import { convertPrompt } from './convert-messages-request.ts';
import type { CountTokensRequest } from './messages-request-schema.ts';

/**
 * POST /v1/messages/count_tokens body → canonical request, through the same converter
 * as /v1/messages so both count exactly what a call would send. The route resolves
 * `model` and asks the adapter (or a local tokenizer) for the number.
 */
export function convertCountTokensBody(body: CountTokensRequest): { model: string; request: Omit<ModelRequest, 'model'> } {
  return { model: body.model, request: convertPrompt(body) };
}

/** The Anthropic response shape: `{ input_tokens }`. */
export function renderCountTokens(inputTokens: number): { input_tokens: number } {
  return { input_tokens: inputTokens };
}
