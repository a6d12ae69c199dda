import { type Dispatcher, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { type AddressPolicy, pinnedAgent, RefusedDestinationError, type ResolvedAddress, resolveTarget } from './address-guard.ts';

/** The shape of `fetch` that HTTP clients (the MCP SDK's transports) accept as an option. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export type GuardedFetchOptions = AddressPolicy & {
  /** Why a URL (the first, or one a redirect points at) is refused; undefined when it may be called. */
  checkUrl: (url: URL) => string | undefined;
  /** Bytes of one response body read at most; past that the body fails. */
  maxResponseBytes: number;
  maxRedirects?: number;
  /** Who refuses, in error messages ("MCP"). */
  who: string;
  /** The dispatcher that connects to a checked address (tests put their listener behind it). */
  connectTo?: (target: ResolvedAddress) => Dispatcher;
};

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// A Response with one of these statuses cannot be built with a body.
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A fetch for URLs that tenant input chose: each hop (redirects are followed here, by
 * hand, unless the caller handles them itself with `redirect: 'manual'`) has its URL
 * checked, its host's addresses checked and its connection pinned to the checked
 * address, so nothing reaches an address the policy refuses, not even by DNS rebinding.
 */
export function guardedFetch(options: GuardedFetchOptions): FetchLike {
  const maxRedirects = options.maxRedirects ?? 5;
  const connectTo = options.connectTo ?? pinnedAgent;
  return async (input, init = {}) => {
    const follow = init.redirect !== 'manual' && init.redirect !== 'error';
    let url = new URL(String(input));
    let method = init.method ?? 'GET';
    let body = init.body;
    for (let hop = 0; ; hop += 1) {
      const prefix = hop === 0 ? '' : 'redirect refused: ';
      const refusal = options.checkUrl(url);
      if (refusal) throw new RefusedDestinationError(`${prefix}${refusal}`);
      const target = await resolveTarget(url, options, options.who).catch((error: Error) => {
        throw error instanceof RefusedDestinationError ? new RefusedDestinationError(`${prefix}${error.message}`) : new Error(`${prefix}${error.message}`);
      });
      const dispatcher = connectTo(target);
      let response: Response;
      try {
        const requestInit = { ...init, method, body, redirect: 'manual', dispatcher } as unknown as UndiciRequestInit;
        response = (await undiciFetch(url, requestInit)) as unknown as Response;
      } catch (error) {
        await dispatcher.destroy().catch(() => undefined);
        throw error;
      }
      // Closing waits for the body in flight (a long SSE stream too), then frees the connection.
      void dispatcher.close().catch(() => undefined);
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || location === null || !follow) {
        if (REDIRECT_STATUSES.has(response.status) && init.redirect === 'error') throw new Error(`${url.origin} answered with a redirect`);
        return capResponseBody(response, options.maxResponseBytes, options.who);
      }
      await response.body?.cancel().catch(() => undefined);
      if (hop >= maxRedirects) throw new RefusedDestinationError(`too many redirects (more than ${maxRedirects})`);
      url = new URL(location, url);
      // As browsers do: 303 (and 301/302 after a POST) go on as a GET without the body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
    }
  };
}

/** The response with a body that fails once more than `maxBytes` arrived (a server that answers forever is cut off). */
export function capResponseBody(response: Response, maxBytes: number, who: string): Response {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw new Error(`the ${who} server's answer is ${declared} bytes, more than the ${maxBytes} allowed`);
  }
  if (!response.body || NULL_BODY_STATUSES.has(response.status)) return response;
  let size = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > maxBytes) controller.error(new Error(`the ${who} server's answer exceeded the ${maxBytes} bytes allowed`));
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(limit), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Plain fetch with the body cap only: for servers the operator configured (private addresses and all). */
export const cappedFetch =
  (maxBytes: number, who: string): FetchLike =>
  async (url, init) =>
    capResponseBody(await fetch(url, init), maxBytes, who);
