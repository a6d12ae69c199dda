/**
 * Google Vertex AI: Gemini models speak the Gemini API's generateContent body and Claude
 * models Anthropic's Messages body (with Vertex's `anthropic_version` and the model in the
 * path), so the adapter reuses both mappings and changes only the address and the auth.
 */
import type { ModelRequest, ModelResponse, ModelStreamEvent } from '../../core/model-types.ts';
import type { CallOptions, ProviderAdapter, ProviderConfig, VertexSettings } from '../adapter.ts';
import { convertMessagesRequest } from '../anthropic/convert-messages-request.ts';
import { mapMessagesResponse } from '../anthropic/map-messages-response.ts';
import { mapMessagesStream } from '../anthropic/map-messages-stream.ts';
import { convertGenerateRequest } from '../gemini/convert-generate-request.ts';
import { mapGenerateResponse } from '../gemini/map-generate-response.ts';
import { mapGenerateStream } from '../gemini/map-generate-stream.ts';
import { readSseBatches } from '../http/sse-events.ts';
import { postJson, postStream } from '../http/upstream-client.ts';
import { vertexCall, vertexModelPath, vertexPublisher } from './vertex-call.ts';
import { serviceAccountTokenSource, type AccessTokenSource } from './vertex-token-source.ts';

/** The Messages API version Vertex expects in the body of Claude calls. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

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
  const token = tokenSourceFor(settings);
  const call = async (model: string, method: string, options: CallOptions) => vertexCall(vertexModelPath(settings, vertexPublisher(model), model, method), await token(), options.signal);

  return {
    config,
    async generateChat(request: ModelRequest, options: CallOptions): Promise<ModelResponse> {
      if (vertexPublisher(request.model) === 'anthropic') {
        const response = await postJson(config, { body: vertexMessagesBody(request, false), ...(await call(request.model, 'rawPredict', options)) });
        return mapMessagesResponse(response.body);
      }
      const response = await postJson(config, { body: convertGenerateRequest(request), ...(await call(request.model, 'generateContent', options)) });
      return mapGenerateResponse(response.body, request.model);
    },
    streamChat(request: ModelRequest, options: CallOptions): AsyncIterableIterator<ModelStreamEvent> {
      // Opened by the reader on the first next(): the stream stays lazy.
      if (vertexPublisher(request.model) === 'anthropic') {
        const open = async () => (await postStream(config, { body: vertexMessagesBody(request, true), ...(await call(request.model, 'streamRawPredict', options)) })).body;
        return mapMessagesStream(readSseBatches(open));
      }
      const open = async () => (await postStream(config, { query: { alt: 'sse' }, body: convertGenerateRequest(request), ...(await call(request.model, 'streamGenerateContent', options)) })).body;
      return mapGenerateStream(readSseBatches(open));
    },
  };
}
