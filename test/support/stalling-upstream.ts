/**
 * An OpenAI-format chat endpoint on 127.0.0.1 that a test can make stall, for timeout tests.
 * `stall` picks where each chat request stops:
 *   undefined             answers at once: a `chat.completion`, or its chunks (with usage when
 *                         `stream_options.include_usage` asks) and `[DONE]`
 *   'before-headers'      never answers
 *   'before-first-event'  sends a stream's headers, then nothing
 *   'after-first-event'   streams the role chunk and two words, then nothing
 * A stalled request stays open until the client gives up (counted in `abandoned`) or the
 * server closes. Every chat request is counted in `hits`.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Stall = 'before-headers' | 'before-first-event' | 'after-first-event';

export type StallingUpstream = {
  /** `http://127.0.0.1:PORT/v1`. */
  url: string;
  stall: Stall | undefined;
  hits: number;
  abandoned: number;
  close(): Promise<void>;
};

const ANSWER = 'hello from the upstream';
const USAGE = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };

export async function startStallingUpstream(): Promise<StallingUpstream> {
  const upstream: StallingUpstream = { url: '', stall: undefined, hits: 0, abandoned: 0, close: async () => undefined };
  const server = createServer(async (request, response) => {
    const chat = request.method === 'POST' && request.url?.endsWith('/chat/completions') === true;
    // Counted on arrival: a client that gives up early may leave before its body is read.
    if (chat) upstream.hits += 1;
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (!chat) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; stream?: boolean; stream_options?: { include_usage?: boolean } };
    response.on('close', () => {
      if (!response.writableFinished) upstream.abandoned += 1;
    });
    const stall = upstream.stall;
    if (stall === 'before-headers') return;
    if (!body.stream) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(body.model)));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.flushHeaders();
    if (stall === 'before-first-event') return;
    const include = body.stream_options?.include_usage === true;
    const events = streamChunks(body.model, include);
    const sent = stall === 'after-first-event' ? events.slice(0, 3) : events;
    for (const event of sent) response.write(`data: ${JSON.stringify(event)}\n\n`);
    if (stall === 'after-first-event') return;
    end(response);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  upstream.close = () =>
    new Promise<void>((closed) => {
      server.closeAllConnections();
      server.close(() => closed());
    });
  return upstream;
}

const end = (response: ServerResponse) => response.end('data: [DONE]\n\n');

function completion(model: string) {
  return {
    id: 'chatcmpl-stall',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: ANSWER, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: USAGE,
  };
}

/** The role chunk, one chunk per word, the finish chunk, and the usage chunk when asked for. */
function streamChunks(model: string, includeUsage: boolean): Array<Record<string, unknown>> {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: 'chatcmpl-stall',
    object: 'chat.completion.chunk',
    created: 1,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage && { usage: null }),
  });
  const words = ANSWER.match(/\S+\s*/g) ?? [];
  return [
    chunk({ role: 'assistant', content: '' }),
    ...words.map((word) => chunk({ content: word })),
    chunk({}, 'stop'),
    ...(includeUsage ? [{ id: 'chatcmpl-stall', object: 'chat.completion.chunk', created: 1, model, choices: [], usage: USAGE }] : []),
  ];
}
