/**
 * A deterministic fake OpenAI upstream on 127.0.0.1 (random port) that speaks the real
 * wire format, for tests of adapters, the pipeline and end-to-end runs.
 *
 *   const upstream = await startFakeOpenAIUpstream();
 *   // point a provider at upstream.url (`http://127.0.0.1:PORT/v1`)
 *   upstream.requests   // every request received: method, path, headers, parsed body
 *   await upstream.close();
 *
 * Routes: GET /v1/models (a one-model list), POST /v1/chat/completions (stream or not, `stream_options.include_usage`),
 * /v1/embeddings, /v1/images/generations, /v1/moderations, /v1/audio/speech (streams
 * bytes), /v1/audio/transcriptions and /v1/audio/translations (multipart); /v1/files and
 * /v1/responses in fake-openai-stateful.ts.
 *
 * Chat behaviour is picked by the model name (substring match, first rule wins):
 *   judge               grades the `<run>` against the `<rubric>` of the last user message: the share
 *                       of the rubric's double-quoted words the run mentions, as `{"score","reason"}`
 *                       JSON text; `judge-malformed` answers prose (fake-openai-judge.ts)
 *   fail-once-<status>  the first attempt for this model name fails with <status>, later ones echo
 *   fail-<status>       always answers <status> with an OpenAI error body (429 adds `retry-after: 1`)
 *   fail-midstream      streams three chunks then destroys the socket (non-stream: destroys at once)
 *   hang                never answers (no headers) until the client gives up: for timeout tests
 *   tools-all           no tool result yet → calls every declared tool in one answer (parallel
 *                       calls); tool messages present → text "Tools returned: <each result> | …"
 *   phantom             calls `made_up_tool` (declared or not); a tool message present → "Tool made_up_tool returned: …"
 *   loop                calls the first declared tool after every result, never answering (run bounds tests)
 *   tool                no tool result yet → calls the first declared tool with its required
 *                       properties filled (string "fake", number 1, boolean true, array [], object {});
 *                       a tool message present → text "Tool <name> returned: <last tool content>"
 *   narrated            with `tool`: says "Let me check." in the answer that calls the tool
 *   reasoning           also emits `reasoning_content` (DeepSeek/vLLM style) before the answer
 *   slow                streams one chunk every `slowChunkDelayMs` (default 100 ms), after 30 padding
 *                       words "tick-1 … tick-30"
 *   anything else       echoes the last user message's text
 * `max_completion_tokens` (or `max_tokens`) below the answer's word count cuts the text to fit
 * (reasoning words count too) and finishes with `length`.
 * `tool` and `reasoning` combine; the `fail-*` and `slow` rules apply to any model containing them.
 * `attempts(model)` counts chat requests per model name, failed or not.
 * `holdSlowAnswers()` stops every `slow` stream before its last chunk until the function it
 * returns is called: a test decides a burst of calls while none of them can finish.
 *
 * Usage, deterministic: prompt_tokens = ceil(characters of all message text / 4);
 * completion_tokens = number of whitespace-separated words output (reasoning, text, and
 * a tool call's name plus its arguments JSON); reasoning_tokens = words of reasoning.
 * Embeddings: prompt_tokens = ceil(characters of all inputs / 4).
 *
 * With `apiKey` set, requests without `Authorization: Bearer <apiKey>` get a 401.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseFakeChatBody, planChat, renderChunks, renderCompletion, type ChatPlan } from './fake-openai-chat.ts';
import { createStatefulState, handleStateful, isStatefulPath } from './fake-openai-stateful.ts';
import { handleEmbeddings, handleImages, handleModerations, handleSpeech, handleTranscription } from './fake-openai-media.ts';
import { bagOfWordsVector } from './bag-of-words-embedding.ts';

export type RecordedRequest = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, or `{fields, files}` for multipart, or the raw text otherwise. */
  body: unknown;
};

export type FakeOpenAIUpstream = {
  /** Base URL including `/v1`. */
  url: string;
  requests: RecordedRequest[];
  attempts(model: string): number;
  /** Holds `slow` streams before their last chunk; call the returned function to let them end. */
  holdSlowAnswers(): () => void;
  /** How many answers (streamed, or `hang` ones never given) the client closed before the server finished them. */
  readonly clientDisconnects: number;
  close(): Promise<void>;
};

export type FakeOpenAIOptions = {
  apiKey?: string;
  slowChunkDelayMs?: number;
  /** `bag-of-words`: embeddings by bagOfWordsVector (similar texts close), instead of the character codes. */
  embeddings?: 'bag-of-words';
};

export type MultipartBody = {
  /** Each text field's last value. */
  fields: Record<string, string>;
  /** Every value of each text field, in order (a `name[]` field may repeat). */
  values: Record<string, string[]>;
  files: Array<{ field: string; filename: string; contentType: string; size: number; data: Buffer }>;
};

export async function startFakeOpenAIUpstream(options: FakeOpenAIOptions = {}): Promise<FakeOpenAIUpstream> {
  const requests: RecordedRequest[] = [];
  const attemptCounts = new Map<string, number>();
  const state: { clientDisconnects: number; completionCounter: number; slowHold: Promise<void> | undefined } = { clientDisconnects: 0, completionCounter: 0, slowHold: undefined };
  const stateful = createStatefulState();

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, String(error), 'server_error');
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const raw = await readBody(request);
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const body = await parseBody(raw, request.headers['content-type'] ?? '');
    requests.push({ method: request.method ?? 'GET', path, headers: request.headers, body });

    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendError(response, 401, 'Incorrect API key provided: sk-fa***ey.', 'invalid_request_error', 'invalid_api_key');
    }
    if (isStatefulPath(path)) return handleStateful(stateful, request.method ?? 'GET', path, body, response);
    if (request.method === 'GET' && path === '/v1/models') {
      return sendJson(response, 200, { object: 'list', data: [{ id: 'test-echo', object: 'model', created: 1_700_000_000, owned_by: 'fake' }] });
    }
    if (request.method !== 'POST') return sendError(response, 405, `Method ${request.method} not allowed`, 'invalid_request_error');
    switch (path) {
      case '/v1/chat/completions':
        return chat(body, response);
      case '/v1/embeddings':
        return sendJson(response, 200, handleEmbeddings(body, options.embeddings === 'bag-of-words' ? bagOfWordsVector : undefined));
      case '/v1/images/generations':
        return sendJson(response, 200, handleImages(body));
      case '/v1/moderations':
        return sendJson(response, 200, handleModerations(body, requests.length));
      case '/v1/audio/speech': {
        const speech = handleSpeech(body);
        response.writeHead(200, { 'content-type': speech.contentType, 'transfer-encoding': 'chunked' });
        // Several writes with pauses, so clients really receive a stream and not one buffer.
        for (const chunk of speech.chunks) {
          response.write(chunk);
          await sleep(5);
        }
        return void response.end();
      }
      case '/v1/audio/transcriptions':
      case '/v1/audio/translations': {
        const answer = handleTranscription(body, path.endsWith('translations') ? 'translate' : 'transcribe');
        response.writeHead(answer.status, { 'content-type': answer.contentType });
        return void response.end(answer.body);
      }
      default:
        return sendError(response, 404, `Invalid URL (POST ${path})`, 'invalid_request_error');
    }
  }

  async function chat(body: unknown, response: ServerResponse): Promise<void> {
    const parsed = parseFakeChatBody(body);
    if (!parsed.success) return sendError(response, 400, `Invalid chat body: ${parsed.error.message}`, 'invalid_request_error');
    const { model } = parsed.data;
    const attempt = (attemptCounts.get(model) ?? 0) + 1;
    attemptCounts.set(model, attempt);

    const failure = /fail-(once-)?(\d{3})/.exec(model);
    if (failure?.[2] !== undefined && (failure[1] === undefined || attempt === 1)) {
      return sendFailure(response, Number(failure[2]));
    }
    if (model.includes('hang')) {
      // Never answers; counts the caller giving up (its connection closing).
      response.on('close', () => (state.clientDisconnects += 1));
      return;
    }
    if (model.includes('fail-midstream') && parsed.data.stream !== true) {
      response.destroy();
      return;
    }
    const plan: ChatPlan = planChat(parsed.data);
    if (model.includes('slow')) {
      const padding = Array.from({ length: 30 }, (_, index) => `tick-${index + 1}`).join(' ');
      plan.text = `${padding} ${plan.text ?? ''}`.trim();
    }
    state.completionCounter += 1;
    const id = `chatcmpl-fake-${state.completionCounter}`;
    if (parsed.data.stream !== true) return sendJson(response, 200, renderCompletion(id, model, plan));

    const includeUsage = parsed.data.stream_options?.include_usage === true;
    const chunks = renderChunks(id, model, plan, includeUsage);
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    let finished = false;
    response.on('close', () => {
      if (!finished) state.clientDisconnects += 1;
    });
    for (const [position, chunk] of chunks.entries()) {
      if (response.destroyed) return;
      if (model.includes('fail-midstream') && position === 3) {
        response.destroy();
        return;
      }
      if (model.includes('slow') && position === chunks.length - 1) await state.slowHold;
      response.write(`data: ${JSON.stringify(chunk)}\n\n`);
      if (model.includes('slow')) await sleep(options.slowChunkDelayMs ?? 100);
      // Let the chunks reach the client before the socket is destroyed.
      else if (model.includes('fail-midstream')) await sleep(5);
    }
    finished = true;
    response.end('data: [DONE]\n\n');
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    attempts: (model) => attemptCounts.get(model) ?? 0,
    holdSlowAnswers: () => {
      let release = () => {};
      state.slowHold = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        state.slowHold = undefined;
        release();
      };
    },
    get clientDisconnects() {
      return state.clientDisconnects;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function sendFailure(response: ServerResponse, status: number): void {
  if (status === 429) {
    response.setHeader('retry-after', '1');
    return sendError(response, 429, 'Rate limit reached for requests. Limit: 3, Used: 3, Requested: 1. Please try again in 1s.', 'requests', 'rate_limit_exceeded');
  }
  if (status >= 500) {
    return sendError(response, status, 'The server had an error while processing your request. Sorry about that!', 'server_error');
  }
  return sendError(response, status, `Fake failure with status ${status}`, 'invalid_request_error');
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

export function sendError(response: ServerResponse, status: number, message: string, type: string, code: string | null = null): void {
  sendJson(response, status, { error: { message, type, param: null, code } });
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function parseBody(raw: Buffer, contentType: string): Promise<unknown> {
  if (contentType.startsWith('multipart/form-data')) {
    // The platform's Response parses multipart for us: no dependency, same parser as browsers.
    // A malformed form is recorded as text, and the handlers refuse it as upstream would (never a 500).
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData().catch(() => undefined);
    if (!form) return raw.toString('utf8');
    const result: MultipartBody = { fields: {}, values: {}, files: [] };
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') {
        result.fields[field] = value;
        (result.values[field] ??= []).push(value);
      } else {
        const data = Buffer.from(await value.arrayBuffer());
        result.files.push({ field, filename: value.name, contentType: value.type, size: data.length, data });
      }
    }
    return result;
  }
  const text = raw.toString('utf8');
  if (!contentType.includes('json')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
