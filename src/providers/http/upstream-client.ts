/**
 * The one HTTP client every provider adapter uses to reach its upstream.
 *
 * Built on undici's `dispatch` (upstream-dispatch.ts) with a single keep-alive Agent for
 * the whole process: global fetch costs 4-5x more CPU per call and `undici.request`
 * about 2.5x, and reusing connections saves a TLS handshake on every model call.
 *
 * What callers get:
 * - URL = `config.baseUrl` + `path`, with `config.query` and the call's `query` appended;
 * - headers = the call's headers (auth, content type), then `config.headers` on top, so an
 *   operator can override anything per provider (Azure's `api-key`, OpenRouter's referer);
 * - a per-attempt timeout until response headers arrive (`config.timeoutMs`, default
 *   60 s; an AttemptSignal's own limit instead), thrown as a retryable `UpstreamError` with
 *   status 0 (see `isUpstreamTimeout`), and an AttemptSignal's idle limit between body reads;
 * - network failures before the response (refused, DNS, TLS) as a retryable `UpstreamError`
 *   with status 0 and `network: 'unreachable'`;
 * - HTTP status >= 400 as an `UpstreamError` carrying the status, the provider's own
 *   message and Retry-After (the header, else what `readRetryAfter` finds in the body);
 * - an aborted `signal` rejects with the signal's reason (not an UpstreamError: the
 *   caller went away, nothing to retry).
 *
 * Error messages name the method, origin and path but never the query string (Gemini
 * keys may travel there) and never the API key.
 */
import { Agent, type Dispatcher, type FormData, errors as undiciErrors } from 'undici';
import type { ProviderConfig } from '../adapter.ts';
import { UpstreamError } from '../upstream-error.ts';
import { BodyBrokeError, dispatchUpstream, dispatchUpstreamText, type DispatchedResponse, type UpstreamBody, type WholeResponse } from './upstream-dispatch.ts';
import { ITERATION_DONE } from '../../core/iteration-done.ts';
import type { CancelSignal } from '../../core/cancel-signal.ts';
import { AttemptSignal } from './attempt-signal.ts';

export { FormData } from 'undici';

const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_ERROR_MESSAGE_CHARS = 1_000;

/** A provider's wait for response headers: its `timeout_ms` (or JUNCTION_UPSTREAM_TIMEOUT_MS), else 60 s. */
export const providerTimeoutMs = (config: ProviderConfig): number => config.timeoutMs ?? DEFAULT_TIMEOUT_MS;

/** One pool of keep-alive connections per origin, shared by every adapter in the process. */
const sharedAgent = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 });

/** Turns an upstream error body into the provider's message; `undefined` falls back to the generic reader. */
export type ErrorMessageReader = (body: unknown, text: string) => string | undefined;

/** Seconds an error body asks to wait, for providers that say it there rather than in Retry-After (Gemini). */
export type RetryAfterReader = (body: unknown) => number | undefined;

/**
 * What a call needs besides its body. Adapters build one per call and put their own
 * fields before it (`{ body, ...openAICall(…) }`): in Node 20's V8 a literal opening with
 * a spread gets a new hidden class per object, which made every read of it here miss.
 */
export type UpstreamCall = {
  /** Path appended to `config.baseUrl`, starting with `/`, e.g. `/chat/completions`. */
  path: string;
  signal: CancelSignal;
  /** Per-call headers, typically auth (`authorization`, `x-api-key`…). `config.headers` win over these. */
  headers?: Record<string, string>;
  /** Per-call query parameters (e.g. Gemini's `alt=sse`), added to `config.query`. */
  query?: Record<string, string>;
  /** Provider-specific error body reader; the generic one handles the common shapes. */
  readErrorMessage?: ErrorMessageReader;
  readRetryAfter?: RetryAfterReader;
};

export type UpstreamResponse<Body> = {
  status: number;
  /** Lower-cased header names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: Body;
};

type RawBody = string | Buffer | FormData;

/**
 * Sends one request and checks its status. The building block of the helpers below;
 * use it directly for methods they do not cover (GET, pass-through). On success the
 * caller owns `body` and must consume or destroy it.
 */
export async function sendUpstream(config: ProviderConfig, call: UpstreamCall & { method: 'GET' | 'POST' | 'DELETE'; body?: RawBody }): Promise<UpstreamResponse<UpstreamBody>> {
  return sendPrepared(config, call, prepareRequest(config, call, call.method, call.headers, call.body));
}

/** sendUpstream once its dispatch options are made. */
async function sendPrepared(config: ProviderConfig, call: UpstreamCall, request: PreparedRequest): Promise<UpstreamResponse<UpstreamBody>> {
  let response: DispatchedResponse;
  try {
    response = await dispatchUpstream(sharedAgent, request.options, call.signal);
  } catch (error) {
    if (call.signal.aborted) throw call.signal.reason ?? error;
    throw toNetworkError(error, request.where, request.timeoutMs);
  }
  const headers = flattenHeaders(response.headers);
  if (response.statusCode >= 400) {
    throw statusError(config, call, request.where, response.statusCode, headers, await response.body.text().catch(() => ''));
  }
  return { status: response.statusCode, headers, body: response.body };
}

/** POSTs a JSON body and returns the parsed JSON answer (unvalidated: parse it with zod). */
export async function postJson(config: ProviderConfig, call: UpstreamCall & { body: unknown }): Promise<UpstreamResponse<unknown>> {
  const request = prepareRequest(config, call, 'POST', call.headers, JSON.stringify(call.body), 'application/json', 'application/json');
  // The answer arrives whole (dispatchUpstreamText): one promise per call, not one for the
  // headers, a reader and one for the text.
  let response: WholeResponse;
  try {
    response = await dispatchUpstreamText(sharedAgent, request.options, call.signal);
  } catch (error) {
    if (call.signal.aborted) throw call.signal.reason ?? error;
    if (!(error instanceof BodyBrokeError)) throw toNetworkError(error, request.where, request.timeoutMs);
    // An error status whose body broke off still has its headers (Retry-After).
    if (error.statusCode >= 400) throw statusError(config, call, request.where, error.statusCode, flattenHeaders(error.headers), '');
    throw streamError(error.cause, call.signal, call.path);
  }
  const headers = flattenHeaders(response.headers);
  if (response.statusCode >= 400) throw statusError(config, call, request.where, response.statusCode, headers, response.text);
  try {
    return { status: response.statusCode, headers, body: JSON.parse(response.text) as unknown };
  } catch (error) {
    throw new UpstreamError(`${call.path} returned a body that is not JSON`, {
      status: 502,
      upstreamMessage: 'upstream returned a body that is not JSON',
      cause: error,
    });
  }
}

/**
 * The dispatch options of a call, and how errors name it (method, origin, path: never the
 * query). Method, headers and body come as arguments, and the headers are merged by
 * Object.assign: in Node 20's V8 an object literal opening with a spread (`{ ...call,
 * method }`, `{ ...a, ...b }`) gets a new hidden class every time, and each read of such
 * an object (here, and undici's over the headers) then missed V8's caches.
 */
function prepareRequest(
  config: ProviderConfig,
  call: UpstreamCall,
  method: 'GET' | 'POST' | 'DELETE',
  headers: Record<string, string> | undefined,
  body: RawBody | undefined,
  contentType?: string,
  accept?: string,
) {
  const address = upstreamAddress(config, call.path, call.query);
  const limits = call.signal instanceof AttemptSignal ? call.signal : undefined;
  const timeoutMs = limits?.firstByteMs ?? providerTimeoutMs(config);
  // Content type and accept first, the call's headers over them, the provider config's over all.
  const merged: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType, accept: accept ?? contentType };
  const options: Dispatcher.DispatchOptions = {
    origin: address.origin,
    path: address.pathAndQuery,
    method,
    headers: Object.assign(merged, headers, config.headers),
    body: body ?? null,
    headersTimeout: timeoutMs,
    // Undefined keeps undici's default; undici does not count the time a paused (backpressured) body waits.
    bodyTimeout: limits?.streamIdleMs,
  };
  return { options, where: `${method} ${address.originAndPath}`, timeoutMs };
}

type PreparedRequest = ReturnType<typeof prepareRequest>;

/** An HTTP status >= 400 as an UpstreamError with the provider's message (never our key) and its Retry-After. */
function statusError(config: ProviderConfig, call: UpstreamCall, where: string, status: number, headers: Record<string, string>, text: string): UpstreamError {
  const parsed = parseJson(text);
  const upstreamMessage = scrubSecret(readMessage(parsed, text, call.readErrorMessage) ?? `HTTP ${status}`, config.apiKey);
  const retryAfterSeconds = parseRetryAfter(headers) ?? call.readRetryAfter?.(parsed);
  return new UpstreamError(`${where} failed with ${status}: ${upstreamMessage}`, {
    status,
    upstreamMessage,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  });
}

/**
 * POSTs a JSON body and returns the response body as a byte stream (SSE, audio…).
 * Failures while reading the stream surface as `UpstreamError` status 0; the bytes
 * already yielded stay delivered, so callers must not retry once they have used any.
 */
export async function postStream(config: ProviderConfig, call: UpstreamCall & { body: unknown; accept?: string }): Promise<UpstreamResponse<AsyncIterable<Uint8Array>>> {
  const response = await sendPrepared(config, call, prepareRequest(config, call, 'POST', call.headers, JSON.stringify(call.body), 'application/json', call.accept ?? 'text/event-stream'));
  return { status: response.status, headers: response.headers, body: guardStream(response.body, call.signal, call.path) };
}

/** POSTs a multipart form (undici's FormData, re-exported here) and returns the raw answer bytes. */
export async function postMultipart(config: ProviderConfig, call: UpstreamCall & { form: FormData }): Promise<UpstreamResponse<Buffer>> {
  const response = await sendPrepared(config, call, prepareRequest(config, call, 'POST', call.headers, call.form));
  const chunks: Uint8Array[] = [];
  for await (const chunk of guardStream(response.body, call.signal, call.path)) chunks.push(chunk);
  return { status: response.status, headers: response.headers, body: Buffer.concat(chunks) };
}

/** True when the error is our own per-attempt timeout (worth a 504 rather than a 502). */
export const isUpstreamTimeout = (error: unknown): boolean => error instanceof UpstreamError && error.network === 'timeout';

/**
 * The body with its read errors turned into streamError's. A plain iterator rather than
 * an async generator around the body's: one promise per read instead of a generator's
 * suspension and resumption as well. Leaving early (`return`) still stops the body. A
 * class, not a literal with a `[Symbol.asyncIterator]` method: a computed method name in
 * a literal goes through the runtime (naming the new function) on every stream.
 */
export function guardStream(body: AsyncIterable<Uint8Array>, signal: CancelSignal, path: string): AsyncIterable<Uint8Array> {
  return new GuardedBody(body, signal, path);
}

class GuardedBody implements AsyncIterable<Uint8Array> {
  readonly #body: AsyncIterable<Uint8Array>;
  readonly #signal: CancelSignal;
  readonly #path: string;

  constructor(body: AsyncIterable<Uint8Array>, signal: CancelSignal, path: string) {
    this.#body = body;
    this.#signal = signal;
    this.#path = path;
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    const reads = this.#body[Symbol.asyncIterator]();
    const failed = (error: unknown): never => {
      throw streamError(error, this.#signal, this.#path);
    };
    return {
      next: () => reads.next().then(undefined, failed),
      return: async () => (await reads.return?.()) ?? ITERATION_DONE,
    };
  }
}

/** A read that failed: the caller's abort reason when it left, a timeout when the upstream fell silent, else a broken upstream. */
function streamError(error: unknown, signal: CancelSignal, path: string): unknown {
  if (signal.aborted) return signal.reason ?? error;
  if (error instanceof undiciErrors.BodyTimeoutError) {
    return new UpstreamError(`${path}: upstream stream stalled`, { status: 0, network: 'timeout', upstreamMessage: 'the answer stalled past its idle limit', cause: error });
  }
  return new UpstreamError(`${path}: upstream stream broke: ${describe(error)}`, {
    status: 0,
    upstreamMessage: 'upstream connection closed unexpectedly',
    cause: error,
  });
}

/** An upstream call's address as dispatch and error messages read it (a URL's getters make new strings on every read). */
type UpstreamAddress = { readonly origin: string; readonly pathAndQuery: string; readonly originAndPath: string };

/**
 * Addresses of calls without per-call query, per provider config: parsing a URL per call,
 * and reading its getters, showed in profiles. Bounded, because pass-through paths come
 * from clients.
 */
const plainAddresses = new WeakMap<ProviderConfig, Map<string, UpstreamAddress>>();
const MAX_CACHED_PATHS = 256;

function upstreamAddress(config: ProviderConfig, path: string, query: Record<string, string> | undefined): UpstreamAddress {
  if (query !== undefined) return addressOf(parseUrl(config, path, query));
  let byPath = plainAddresses.get(config);
  if (!byPath) plainAddresses.set(config, (byPath = new Map()));
  let address = byPath.get(path);
  if (address) return address;
  address = addressOf(parseUrl(config, path, undefined));
  if (byPath.size < MAX_CACHED_PATHS) byPath.set(path, address);
  return address;
}

const addressOf = (url: URL): UpstreamAddress => ({ origin: url.origin, pathAndQuery: url.pathname + url.search, originAndPath: url.origin + url.pathname });

function parseUrl(config: ProviderConfig, path: string, query: Record<string, string> | undefined): URL {
  const base = config.baseUrl.endsWith('/') ? config.baseUrl.slice(0, -1) : config.baseUrl;
  const url = new URL(base + path);
  for (const [name, value] of Object.entries(Object.assign({}, config.query, query))) url.searchParams.set(name, value);
  return url;
}

function toNetworkError(error: unknown, where: string, timeoutMs: number): UpstreamError {
  const timedOut = error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.ConnectTimeoutError;
  const message = timedOut ? `no response headers within ${timeoutMs} ms` : `could not reach upstream (${describe(error)})`;
  // The caller sees the error code only: the full message names the upstream's address
  // (`connect ECONNREFUSED 10.0.0.7:11434`), an internal detail kept in `message`.
  const code = errorCode(error);
  const upstreamMessage = timedOut ? message : `connection failed${code ? ` (${code})` : ''}`;
  return new UpstreamError(`${where}: ${message}`, { status: 0, upstreamMessage, network: timedOut ? 'timeout' : 'unreachable', cause: error });
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  // for-in, not Object.entries: undici's header object is a dictionary, and entries() of
  // one went through the runtime on every call.
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** Reads `retry-after-ms` (OpenAI) first, then `retry-after` as seconds or an HTTP date. */
export function parseRetryAfter(headers: Record<string, string>): number | undefined {
  const milliseconds = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] !== undefined && Number.isFinite(milliseconds) && milliseconds >= 0) {
    return milliseconds / 1000;
  }
  const value = headers['retry-after'];
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON (an HTML error page from a proxy, plain text from a small server): the text is used.
    return undefined;
  }
}

function readMessage(parsed: unknown, text: string, reader: ErrorMessageReader | undefined): string | undefined {
  const message = reader?.(parsed, text) ?? readGenericErrorMessage(parsed);
  const fallback = text.trim() === '' ? undefined : text.trim();
  return (message ?? fallback)?.slice(0, MAX_ERROR_MESSAGE_CHARS);
}

/**
 * Handles the shapes most providers use: `{error: {message}}` (OpenAI, Anthropic,
 * Gemini), `{error: "…"}` (Ollama), `{message}` (vLLM, Mistral), `{detail}` (FastAPI
 * servers), and a one-element array of any of these (Gemini on some routes).
 */
export function readGenericErrorMessage(body: unknown): string | undefined {
  const value = Array.isArray(body) ? body[0] : body;
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const error = record['error'];
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const nested = (error as Record<string, unknown>)['message'];
    if (typeof nested === 'string') return nested;
  }
  if (typeof record['message'] === 'string') return record['message'];
  const detail = record['detail'];
  if (typeof detail === 'string') return detail;
  if (detail !== undefined) return JSON.stringify(detail);
  return undefined;
}

function scrubSecret(message: string, secret: string | undefined): string {
  return secret === undefined || secret.length < 4 ? message : message.split(secret).join('[redacted]');
}

function errorCode(error: unknown): string | undefined {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as Error & { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
