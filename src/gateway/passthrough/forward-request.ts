import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher, errors as undiciErrors, request } from 'undici';
import { JunctionError } from '../../core/errors.ts';
import type { ProviderConfig } from '../../providers/adapter.ts';
import { toAbortSignal, type CancelSignal } from '../../core/cancel-signal.ts';
import { requestTimeoutMs, TIMEOUT_HEADER } from '../request-timeout.ts';

/**
 * Own pool for pass-through traffic: uploads and long runs must not hold the
 * connections model calls use, and no body timeout applies between SSE events of a
 * long run beyond undici's default.
 */
const passthroughAgent = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 });

/** Uploads and runs take longer than a model call's first byte. */
const DEFAULT_HEADERS_TIMEOUT_MS = 300_000;

/**
 * RFC 9110 hop-by-hop headers, plus the ones a proxy must recompute; `expect` too (our
 * server already answered the 100-continue, and undici refuses the header).
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'expect']);
/**
 * The caller's credentials for us, their OpenAI account selectors (the provider key's own
 * organization and project apply upstream) and their timeout for us.
 */
const CALLER_ONLY = new Set(['authorization', 'x-api-key', 'x-goog-api-key', 'openai-organization', 'openai-project', 'cookie', TIMEOUT_HEADER]);

export type ForwardCall = {
  method: Dispatcher.HttpMethod;
  /** Path after `/v1`, with the caller's query string (minus any `key=`). */
  pathAndQuery: string;
  headers: IncomingHttpHeaders;
  /** The raw request stream, or a buffered (possibly rewritten) JSON body. */
  body: Readable | Buffer | undefined;
  signal: CancelSignal;
  /** Ask for an uncompressed answer, so its usage can be read while it streams through. */
  identityEncoding: boolean;
};

/** Sends the caller's request to the OpenAI provider with the provider's key; never throws on an HTTP status. */
export async function forwardToProvider(config: ProviderConfig, call: ForwardCall): Promise<Dispatcher.ResponseData> {
  const url = new URL(config.baseUrl + call.pathAndQuery);
  for (const [name, value] of Object.entries(config.query ?? {})) url.searchParams.set(name, value);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || CALLER_ONLY.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (Buffer.isBuffer(call.body)) headers['content-length'] = String(call.body.byteLength);
  if (call.identityEncoding) headers['accept-encoding'] = 'identity';
  if (config.apiKey) headers['authorization'] = `Bearer ${config.apiKey}`;
  Object.assign(headers, config.headers);
  try {
    return await request(url, {
      method: call.method,
      headers,
      body: call.body ?? null,
      signal: toAbortSignal(call.signal),
      dispatcher: passthroughAgent,
      // The caller's `x-junction-timeout-ms` may only shorten the provider's wait.
      headersTimeout: Math.min(requestTimeoutMs(call.headers) ?? Number.POSITIVE_INFINITY, config.timeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS),
    });
  } catch (error) {
    if (call.signal.aborted) throw new JunctionError('client_closed_request', 'The client closed the connection.');
    // The caller sees the path it asked for, never the provider's (possibly internal) origin.
    const where = `${call.method} ${call.pathAndQuery.split('?')[0] ?? ''}`;
    if (error instanceof undiciErrors.HeadersTimeoutError) {
      throw new JunctionError('upstream_timeout', `openai did not answer in time (${where}).`, { cause: error });
    }
    throw new JunctionError('upstream_error', `Could not reach openai (${where}).`, { cause: error });
  }
}

/**
 * The provider account's side of an answer: its cookies (Cloudflare's `__cf_bm`, bound
 * to our provider connection, not the caller's) and the organization and project our
 * provider key belongs to.
 */
const PROVIDER_ONLY = new Set(['set-cookie', 'openai-organization', 'openai-project']);

/** The upstream's response headers for the client, minus hop-by-hop and provider-account ones. */
export function responseHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || PROVIDER_ONLY.has(name)) continue;
    out[name] = value;
  }
  return out;
}
