/** POST /moderations: results are opaque to us and go back to the client unchanged. */
import type { CallOptions, ModerationRequest, ModerationResponse, ProviderConfig } from '../adapter.ts';
import { postJson } from '../http/upstream-client.ts';
import { openAICall } from './openai-call.ts';
import { OpenAIModerationResponseSchema } from './openai-wire-schemas.ts';
import { parseUpstreamBody } from './parse-upstream-body.ts';

export async function moderate(config: ProviderConfig, request: ModerationRequest, options: CallOptions): Promise<ModerationResponse> {
  const body = { model: request.model, input: request.input };
  const response = await postJson(config, { body, ...openAICall(config, '/moderations', options.signal) });
  const parsed = parseUpstreamBody(OpenAIModerationResponseSchema, response.body, 'moderation');
  return { id: parsed.id ?? '', model: parsed.model ?? request.model, results: parsed.results };
}
