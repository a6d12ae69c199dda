/**
 * Google Vertex AI: Gemini models speak the Gemini API's generateContent body and Claude
 * models Anthropic's Messages body (with Vertex's `anthropic_version` and the model in the
 * path), so the adapter reuses both mappings and changes only the address and the auth.
 */
import type { ModelRequest, ModelResponse, ModelStreamEvent } from '../../core/model-types.ts';
import type { CallOptions, ProviderAdapter, ProviderConfig, TokenCount, VertexSettings } from '../adapter.ts';
import { convertMessagesRequest } from '../anthropic/convert-messages-request.ts';
import { countTokensBody, readAnthropicTokenCount } from '../anthropic/count-tokens.ts';
import { mapMessagesResponse } from '../anthropic/map-messages-response.ts';
import { mapMessagesStream } from '../anthropic/map-messages-stream.ts';
import { convertGenerateRequest } from '../gemini/convert-generate-request.ts';
import { readGeminiTokenCount, vertexCountTokensBody } from '../gemini/count-tokens.ts';
import { mapGenerateResponse } from '../gemini/map-generate-response.ts';
import { mapGenerateStream } from '../gemini/map-generate-stream.ts';
import { readSseBatches } from '../http/sse-events.ts';
import { postJson, postStream, type UpstreamCall } from '../http/upstream-client.ts';
import { UpstreamError } from '../upstream-error.ts';
import { vertexCall, vertexModelPath, vertexPublisher } from './vertex-call.ts';
import { serviceAccountTokenSource, type AccessTokenSource } from './vertex-token-source.ts';

/** The Messages API version Vertex expects in the body of Claude calls. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** Claude's token count is a model of its own on Vertex: `publishers/anthropic/models/count-tokens:rawPredict`. */
const VERTEX_CLAUDE_COUNT_TOKENS_MODEL = 'count-tokens';

/**
 * One token source per service account, shared by every deployment that names it, so a
 * token is fetched once for all of them.
 */
const tokenSources = new Map<string, AccessTokenSource>();

function tokenSourceFor(settings: VertexSettings): AccessTokenSource {
  const { key } = settings;
  const id = `${key.tokenUri}\n${key.clientEmail}\n${key.privateKey}`;
  let source = tokenSources.get(id);
  if (!source) tokenSources.set(id, (source = serviceAccountTokenSource(key)));
  return source;
}

/** Claude's Messages body as Vertex takes it: no `model` (it is in the path), Vertex's version. */
function vertexMessagesBody(request: ModelRequest, stream: boolean): Record<string, unknown> {
  const { model: _inPath, ...body } = convertMessagesRequest(request);
  return { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...body, ...(stream && { stream: true }) };
}

export function createVertexAdapter(config: ProviderConfig & { vertex: VertexSettings }): ProviderAdapter {
  const settings = config.vertex;
  const tokens = tokenSourceFor(settings);
  // A token Vertex refuses before its expiry (revoked, rotated key) is dropped, so a retry or the next call exchanges anew.
  const sentTo = async <T>(path: string, options: CallOptions, send: (upstreamCall: UpstreamCall) => Promise<T>): Promise<T> => {
    const token = await tokens.token();
    try {
      return await send(vertexCall(path, token, options.signal));
    } catch (error) {
      if (error instanceof UpstreamError && error.status === 401) tokens.refuse(token);
      throw error;
    }
  };
  const sent = <T>(model: string, method: string, options: CallOptions, send: (upstreamCall: UpstreamCall) => Promise<T>): Promise<T> =>
    sentTo(vertexModelPath(settings, vertexPublisher(model), model, method), options, send);

  return {
    config,
    async generateChat(request: ModelRequest, options: CallOptions): Promise<ModelResponse> {
      if (vertexPublisher(request.model) === 'anthropic') {
        const response = await sent(request.model, 'rawPredict', options, (upstreamCall) => postJson(config, { body: vertexMessagesBody(request, false), ...upstreamCall }));
        return mapMessagesResponse(response.body);
      }
      const response = await sent(request.model, 'generateContent', options, (upstreamCall) => postJson(config, { body: convertGenerateRequest(request), ...upstreamCall }));
      return mapGenerateResponse(response.body, request.model);
    },
    streamChat(request: ModelRequest, options: CallOptions): AsyncIterableIterator<ModelStreamEvent> {
      // Opened by the reader on the first next(): the stream stays lazy.
      if (vertexPublisher(request.model) === 'anthropic') {
        const open = async () => (await sent(request.model, 'streamRawPredict', options, (upstreamCall) => postStream(config, { body: vertexMessagesBody(request, true), ...upstreamCall }))).body;
        return mapMessagesStream(readSseBatches(open));
      }
      const open = async () =>
        (await sent(request.model, 'streamGenerateContent', options, (upstreamCall) => postStream(config, { query: { alt: 'sse' }, body: convertGenerateRequest(request), ...upstreamCall }))).body;
      return mapGenerateStream(readSseBatches(open));
    },
    async countTokens(request: ModelRequest, options: CallOptions): Promise<TokenCount> {
      if (vertexPublisher(request.model) === 'anthropic') {
        // One endpoint for every Claude model, named in the body as in a Messages call.
        const path = vertexModelPath(settings, 'anthropic', VERTEX_CLAUDE_COUNT_TOKENS_MODEL, 'rawPredict');
        const body = { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...countTokensBody(request) };
        return readAnthropicTokenCount((await sentTo(path, options, (upstreamCall) => postJson(config, { body, ...upstreamCall }))).body);
      }
      const response = await sent(request.model, 'countTokens', options, (upstreamCall) => postJson(config, { body: vertexCountTokensBody(request), ...upstreamCall }));
      return readGeminiTokenCount(response.body);
    },
  };
}
