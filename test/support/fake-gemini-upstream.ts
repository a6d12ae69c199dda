/**
 * A deterministic fake of the Gemini API (v1beta) on 127.0.0.1 (random port).
 *
 * `startFakeGeminiUpstream()` → `{ url, requests, attempts, close }`; `url` ends in
 * `/v1beta`. Every request is recorded (method, path with query, lower-cased headers,
 * parsed JSON body). Without `x-goog-api-key` (or `?key=`) it answers 403
 * PERMISSION_DENIED. Routes: `/models/{model}:generateContent`,
 * `:streamGenerateContent?alt=sse`, `:embedContent`, `:batchEmbedContents`, `:countTokens`.
 *
 * Behaviour is picked by substrings of the model name (they combine):
 * - default / `echo`: answers with the last user text (or "ok");
 * - `tool`: while the last user turn has no functionResponse, calls the first declared
 *   function (string properties get the last user text, numbers 42, booleans true);
 *   once a functionResponse is present it answers `The tool said: <response JSON>`;
 * - `thinking`: reports thoughtsTokenCount; when the request sets
 *   thinkingConfig.includeThoughts it also sends a `thought: true` part ("Let me think
 *   about it."), and the first answer part carries
 *   `thoughtSignature: sig_<first 16 hex of sha256(answer)>`;
 * - `fail-429` / `fail-500`: that status with Google's error body (429 with a RetryInfo
 *   detail, `retryDelay: "1s"`, as Gemini sends); `fail-500-2` fails
 *   only the first 2 attempts for that model (`attempts(model)` counts them);
 * - `fail-midstream`: streams one chunk, then destroys the socket;
 * - `stream-error`: streams one chunk, then an error object (503 UNAVAILABLE) as SSE data.
 *
 * Usage is deterministic: promptTokenCount = ceil(characters of all request text / 4)
 * (system instruction, text parts, functionCall args JSON, functionResponse JSON);
 * candidatesTokenCount = words of answer text and function-call args JSON;
 * thoughtsTokenCount = words of the thought text. maxOutputTokens below the answer's word
 * count truncates it with finishReason MAX_TOKENS. Embeddings are `outputDimensionality`
 * (default 8) numbers in [-1, 1] derived from sha256 of the text.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FakeUpstream, startRecordingServer } from './recording-server.ts';

export type { FakeUpstream, RecordedRequest } from './recording-server.ts';

type Part = Record<string, unknown>;
const THOUGHT = 'Let me think about it.';

export function startFakeGeminiUpstream(): Promise<FakeUpstream> {
  return startRecordingServer('/v1beta', handle);
}

function handle(request: IncomingMessage, response: ServerResponse, body: unknown, attemptCounts: Map<string, number>): void {
  const url = new URL(request.url ?? '/', 'http://fake');
  if (request.headers['x-goog-api-key'] === undefined && !url.searchParams.has('key')) {
    return sendError(response, 403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers.");
  }
  const route = /^\/v1beta\/models\/([^:]+):(\w+)$/.exec(url.pathname);
  const model = decodeURIComponent(route?.[1] ?? '');
  const method = route?.[2];
  if (!isRecord(body)) return sendError(response, 400, 'INVALID_ARGUMENT', 'Request body must be a JSON object.');
  if (method === 'embedContent') return sendJson(response, 200, { embedding: { values: embed(body) } });
  if (method === 'batchEmbedContents') {
    const items = asArray(body['requests']).filter(isRecord);
    if (items.some((item) => item['model'] !== `models/${model}`)) {
      return sendError(response, 400, 'INVALID_ARGUMENT', 'Each request model must match the batch model.');
    }
    return sendJson(response, 200, { embeddings: items.map((item) => ({ values: embed(item) })) });
  }
  if (method === 'countTokens') {
    const counted = isRecord(body['generateContentRequest']) ? body['generateContentRequest'] : body;
    return sendJson(response, 200, { totalTokens: promptTokens(counted) });
  }
  const streaming = method === 'streamGenerateContent';
  if (method !== 'generateContent' && !streaming) return sendError(response, 404, 'NOT_FOUND', `No route ${url.pathname}`);
  if (!Array.isArray(body['contents'])) return sendError(response, 400, 'INVALID_ARGUMENT', '* contents: required');

  const attempt = (attemptCounts.get(model) ?? 0) + 1;
  attemptCounts.set(model, attempt);
  const failure = /fail-(429|500)(?:-(\d+))?/.exec(model);
  if (failure !== null && (failure[2] === undefined || attempt <= Number(failure[2]))) {
    return failure[1] === '429'
      ? sendError(response, 429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).', [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }])
      : sendError(response, 500, 'INTERNAL', 'An internal error has occurred.');
  }
  if (model.includes('fail-midstream') && !streaming) return void response.socket?.destroy();

  const { thought, answerParts, finishReason, usage } = planAnswer(model, body);
  const responseId = `fake_${createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 12)}`;
  const envelope = (parts: Part[], final: boolean) => ({
    candidates: [{ content: { role: 'model', parts }, ...(final ? { finishReason, index: 0 } : { index: 0 }) }],
    usageMetadata: final ? usage : { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount },
    modelVersion: model,
    responseId,
  });
  const allParts = [...(thought === undefined ? [] : [{ text: thought, thought: true }]), ...answerParts];
  if (!streaming) return sendJson(response, 200, envelope(allParts, true));

  // Like Gemini: thoughts in their own chunk, text in pieces, each function call whole.
  const pieces: Part[] = allParts.flatMap((part) =>
    typeof part['text'] === 'string' && part['thought'] !== true ? chunks(part['text']).map((text, index) => (index === 0 ? { ...part, text } : { text })) : [part],
  );
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\r\n\r\n`);
  if (model.includes('fail-midstream') || model.includes('stream-error')) {
    send(envelope(pieces.slice(0, 1), false));
    if (model.includes('stream-error')) {
      send({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } });
      return void response.end();
    }
    // Destroy only once the first chunk is flushed, so the client sees a partial stream.
    return void response.write('\r\n', () => response.socket?.destroy());
  }
  pieces.forEach((piece, index) => send(envelope([piece], index === pieces.length - 1)));
  if (pieces.length === 0) send(envelope([], true));
  response.end();
}

function planAnswer(model: string, body: Record<string, unknown>) {
  const contents = asArray(body['contents']).filter(isRecord);
  const lastUser = [...contents].reverse().find((content) => content['role'] === 'user');
  const lastParts = asArray(lastUser?.['parts']).filter(isRecord);
  const functionResponse = lastParts.find((part) => isRecord(part['functionResponse']))?.['functionResponse'];
  const lastText = [...lastParts].reverse().find((part) => typeof part['text'] === 'string')?.['text'];
  const answer = typeof lastText === 'string' ? lastText : 'ok';
  const declarations = asArray(body['tools'])
    .filter(isRecord)
    .flatMap((tool) => asArray(tool['functionDeclarations']).filter(isRecord));
  const generationConfig = isRecord(body['generationConfig']) ? body['generationConfig'] : {};
  const thinkingConfig = isRecord(generationConfig['thinkingConfig']) ? generationConfig['thinkingConfig'] : {};

  let answerParts: Part[];
  let finishReason = 'STOP';
  const firstTool = declarations[0];
  if (model.includes('tool') && firstTool !== undefined && functionResponse === undefined) {
    answerParts = [{ functionCall: { name: String(firstTool['name']), args: argumentsFor(firstTool['parameters'], answer) } }];
  } else {
    let text = isRecord(functionResponse) ? `The tool said: ${JSON.stringify(functionResponse['response'])}` : answer;
    const limit = typeof generationConfig['maxOutputTokens'] === 'number' ? generationConfig['maxOutputTokens'] : Infinity;
    if (words(text).length > limit) {
      text = words(text).slice(0, limit).join(' ');
      finishReason = 'MAX_TOKENS';
    }
    answerParts = [{ text }];
  }
  const thinking = model.includes('thinking');
  const first = answerParts[0];
  if (thinking && first !== undefined) {
    first['thoughtSignature'] = `sig_${createHash('sha256').update(answer).digest('hex').slice(0, 16)}`;
  }
  const candidates = answerParts.reduce((total, part) => total + words(typeof part['text'] === 'string' ? part['text'] : JSON.stringify(asRecord(part['functionCall'])['args'])).length, 0);
  const thoughts = thinking ? words(THOUGHT).length : 0;
  const prompt = promptTokens(body);
  return {
    thought: thinking && thinkingConfig['includeThoughts'] === true ? THOUGHT : undefined,
    answerParts,
    finishReason,
    usage: {
      promptTokenCount: prompt,
      candidatesTokenCount: candidates,
      totalTokenCount: prompt + candidates + thoughts,
      ...(thinking ? { thoughtsTokenCount: thoughts } : {}),
    },
  };
}

function argumentsFor(schema: unknown, text: string): Record<string, unknown> {
  const properties = asRecord(asRecord(schema)['properties']);
  const args: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    const type = String(asRecord(property)['type']).toLowerCase();
    if (type === 'string') args[name] = text;
    else if (type === 'number' || type === 'integer') args[name] = 42;
    else if (type === 'boolean') args[name] = true;
  }
  return args;
}

function promptTokens(body: Record<string, unknown>): number {
  let text = '';
  const contents = [asRecord(body['systemInstruction']), ...asArray(body['contents']).filter(isRecord)];
  for (const content of contents) {
    for (const part of asArray(content['parts']).filter(isRecord)) {
      if (typeof part['text'] === 'string') text += part['text'];
      if (isRecord(part['functionCall'])) text += JSON.stringify(part['functionCall']['args'] ?? {});
      if (isRecord(part['functionResponse'])) text += JSON.stringify(part['functionResponse']['response'] ?? {});
    }
  }
  return Math.ceil(text.length / 4);
}

function embed(request: Record<string, unknown>): number[] {
  const text = asArray(asRecord(request['content'])['parts'])
    .map((part) => String(asRecord(part)['text'] ?? ''))
    .join('');
  const dimensions = typeof request['outputDimensionality'] === 'number' ? request['outputDimensionality'] : 8;
  const values: number[] = [];
  for (let index = 0; values.length < dimensions; index++) {
    const digest = createHash('sha256').update(`${index}:${text}`).digest();
    for (const byte of digest) if (values.length < dimensions) values.push(Math.round((byte / 127.5 - 1) * 1e6) / 1e6);
  }
  return values;
}

const words = (text: string): string[] => text.split(/\s+/).filter((word) => word !== '');
/** Splits text into word-sized pieces that concatenate back to the original. */
const chunks = (text: string): string[] => text.match(/\S+\s*|\s+/g) ?? [];

function sendError(response: ServerResponse, code: number, status: string, message: string, details?: unknown[]): void {
  sendJson(response, code, { error: { code, message, status, ...(details && { details }) } });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  response.end(JSON.stringify(body));
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const asRecord = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
