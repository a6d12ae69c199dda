/** POST /images/generations: parameters pass through; usage is read when the model reports it (gpt-image-1). */
import type { CallOptions, ImageRequest, ImageResponse, ProviderConfig } from '../adapter.ts';
import { postJson } from '../http/upstream-client.ts';
import { openAICall } from './openai-call.ts';
import { OpenAIImageResponseSchema } from './openai-wire-schemas.ts';
import { parseUpstreamBody } from './parse-upstream-body.ts';

export async function generateImages(config: ProviderConfig, request: ImageRequest, options: CallOptions): Promise<ImageResponse> {
  const body = { ...request.params, model: request.model, prompt: request.prompt, n: request.n };
  const response = await postJson(config, { body, ...openAICall(config, '/images/generations', options.signal) });
  const parsed = parseUpstreamBody(OpenAIImageResponseSchema, response.body, 'image generation');
  const { created, data, usage, ...extra } = parsed;
  return {
    created: created ?? Math.floor(Date.now() / 1000),
    data: (data ?? []).map((image) => ({
      ...(image.url ? { url: image.url } : {}),
      ...(image.b64_json ? { b64_json: image.b64_json } : {}),
      ...(image.revised_prompt ? { revised_prompt: image.revised_prompt } : {}),
    })),
    ...(usage ? { usage: { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 } } : {}),
    extra,
  };
}
