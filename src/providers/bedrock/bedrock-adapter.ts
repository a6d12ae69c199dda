import { randomUUID } from 'node:crypto';
import type { ModelRequest, ModelResponse, ModelStreamEvent } from '../../core/model-types.ts';
import type { CallOptions, ProviderAdapter, ProviderConfig, TokenCount } from '../adapter.ts';
import { guardStream, sendUpstream } from '../http/upstream-client.ts';
import { UpstreamError } from '../upstream-error.ts';
import { bedrockAuthenticator } from './bedrock-auth.ts';
import { readBedrockErrorMessage } from './bedrock-error.ts';
import { convertConverseRequest } from './convert-converse-request.ts';
import { cannotCount, countTokensBody, countTokensModelPath, readBedrockTokenCount } from './count-tokens.ts';
import { mapConverseResponse } from './map-converse-response.ts';
import { mapConverseStream } from './map-converse-stream.ts';
import { readEventStreamBatches } from './read-event-stream.ts';

const EVENT_STREAM = 'application/vnd.amazon.eventstream';

/** `/model/{modelId}/converse`: the id is one path segment (its `:` escaped, as the AWS SDK sends it). */
export const converseModelPath = (model: string, operation: 'converse' | 'converse-stream'): string => `/model/${encodeURIComponent(model)}/${operation}`;

/**
 * Adapter for Amazon Bedrock's Converse and ConverseStream APIs (`baseUrl` like
 * `https://bedrock-runtime.us-east-1.amazonaws.com`). The body is serialised here, once,
 * because the signature covers its exact bytes.
 */
export function createBedrockAdapter(config: ProviderConfig): ProviderAdapter {
  const authenticate = bedrockAuthenticator(config);
  const post = async (path: string, body: string, accept: string, options: CallOptions) => {
    const headers = await authenticate(path, body, accept);
    return sendUpstream(config, { method: 'POST', path, body, headers, signal: options.signal, readErrorMessage: readBedrockErrorMessage });
  };
  const send = (model: string, operation: 'converse' | 'converse-stream', request: ModelRequest, options: CallOptions) =>
    post(converseModelPath(model, operation), JSON.stringify(convertConverseRequest(request)), operation === 'converse' ? 'application/json' : EVENT_STREAM, options);
  return {
    config,
    async generateChat(request: ModelRequest, options: CallOptions): Promise<ModelResponse> {
      const response = await send(request.model, 'converse', request, options);
      const text = await readText(response.body, options, '/converse');
      return mapConverseResponse(parseBody(text), answerId(response.headers), request.model);
    },
    async countTokens(request: ModelRequest, options: CallOptions): Promise<TokenCount | undefined> {
      try {
        const response = await post(countTokensModelPath(request.model), countTokensBody(request), 'application/json', options);
        return readBedrockTokenCount(await readText(response.body, options, '/count-tokens'));
      } catch (error) {
        if (cannotCount(error)) return undefined;
        throw error;
      }
    },
    streamChat(request: ModelRequest, options: CallOptions): AsyncIterableIterator<ModelStreamEvent> {
      let id = '';
      // Opened by the reader on the first next(): the stream stays lazy.
      const open = async () => {
        const response = await send(request.model, 'converse-stream', request, options);
        id = answerId(response.headers);
        // Read errors become UpstreamErrors (the caller's abort stays its reason), as postStream's do.
        return guardStream(response.body, options.signal, converseModelPath(request.model, 'converse-stream'));
      };
      return mapConverseStream(readEventStreamBatches(open), () => id, request.model);
    },
  };
}

/** The whole body as text; a broken body is an upstream failure, the caller's abort stays its reason. */
function readText(body: { text(): Promise<string> }, options: CallOptions, operation: string): Promise<string> {
  return body.text().catch((error: unknown) => {
    if (options.signal.aborted) throw options.signal.reason ?? error;
    throw new UpstreamError(`${operation}: upstream body broke`, { status: 0, upstreamMessage: 'upstream connection closed unexpectedly', cause: error });
  });
}

/** Converse answers carry no id: Bedrock's request id names the answer, as it names it in AWS's own logs. */
const answerId = (headers: Record<string, string>): string => `msg_bdrk_${headers['x-amzn-requestid'] ?? randomUUID()}`;

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UpstreamError('/converse returned a body that is not JSON', { status: 502, upstreamMessage: 'upstream returned a body that is not JSON', cause: error });
  }
}
