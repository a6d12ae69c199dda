import type { FetchLike } from '../../net/guarded-fetch.ts';

/** The `_meta` key that marks a tools/call request, so its HTTP answer can be told apart on a shared connection. */
export const CALL_MARK = 'junction/call';

/**
 * A fetch that reports when the HTTP answer to a marked tools/call request ends: its body
 * finished or broke. The MCP SDK waits for the call's result until its timeout even when
 * the server died mid-answer or closed the stream without one; with this, the caller
 * fails the call at once instead (a result in that answer was read before its end).
 */
export function watchedFetch(fetch: FetchLike, onAnswerEnded: (mark: string, error?: unknown) => void): FetchLike {
  return async (url, init) => {
    const mark = markOf(init?.body);
    const response = await fetch(url, init);
    if (mark === undefined || response.body === null) return response;
    const source = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await source.read();
          if (done) {
            controller.close();
            onAnswerEnded(mark);
          } else controller.enqueue(value);
        } catch (error) {
          controller.error(error);
          onAnswerEnded(mark, error);
        }
      },
      cancel: (reason) => source.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function markOf(body: RequestInit['body'] | undefined): string | undefined {
  if (typeof body !== 'string' || !body.includes(CALL_MARK)) return undefined;
  try {
    const message = JSON.parse(body) as { method?: unknown; params?: { _meta?: Record<string, unknown> } };
    const mark = message.method === 'tools/call' ? message.params?._meta?.[CALL_MARK] : undefined;
    return typeof mark === 'string' ? mark : undefined;
  } catch {
    return undefined;
  }
}
