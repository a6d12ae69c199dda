/**
 * A deterministic fake of the Anthropic Messages API on 127.0.0.1 (random port), for
 * tests that need real HTTP, SSE framing and errors without the network.
 *
 * `startFakeAnthropicUpstream()` → `{ url, requests, attempts, close }`; `url` ends in
 * `/v1`, like `https://api.anthropic.com/v1`. Every request is recorded (method, path,
 * lower-cased headers, parsed JSON body). A request without `x-api-key` gets 401 and
 * one without `anthropic-version` gets 400, as upstream does.
 *
 * Behaviour is picked by substrings of the model name (they combine):
 * - default / `echo`: answers with the last user text (or "ok" when there is none);
 * - `tool`: on a turn whose last user message has no tool_result, calls the first
 *   declared tool (string properties get the last user text, numbers 42, booleans
 *   true), id `toolu_fake_<assistant turns so far>`; once a tool_result is present it
 *   answers `The tool said: <result>`;
 * - `thinking`: a thinking block ("Let me think about it.") with signature
 *   `sig_<first 16 hex of sha256(answer)>` (streamed as thinking_delta + signature_delta)
 *   before the answer;
 * - `cached`: reports half the input tokens (rounded down) as cache_read_input_tokens;
 * - `fail-429` / `fail-500`: answers that status with Anthropic's error body;
 *   `fail-500-2` fails only the first 2 attempts for that model, then behaves normally
 *   (`attempts(model)` counts requests per model name);
 * - `fail-midstream`: streams message_start and one text delta, then destroys the socket
 *   (non-streaming: destroys it before answering);
 * - `stream-error`: streams message_start, then an `error` event (overloaded_error).
 *
 * Usage is deterministic: input tokens = ceil(characters of all request text / 4), where
 * text is system text, text blocks, tool_result content and tool_use input JSON; output
 * tokens = number of whitespace-separated words in everything emitted (answer text,
 * thinking text, tool input JSON). `max_tokens` below the answer's word count truncates
 * the answer to that many words with stop_reason `max_tokens`.
 * Also serves POST /v1/messages/count_tokens → `{ input_tokens }`.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FakeUpstream, startRecordingServer } from './recording-server.ts';

export type { FakeUpstream, RecordedRequest } from './recording-server.ts';

type Block = Record<string, unknown> & { type: string };
type Plan = { thinking?: string; signature?: string; text?: string; tool?: { id: string; name: string; input: Record<string, unknown> } };

export function startFakeAnthropicUpstream(): Promise<FakeUpstream> {
  return startRecordingServer('/v1', handle);
}

function handle(request: IncomingMessage, response: ServerResponse, body: unknown, attemptCounts: Map<string, number>): void {
  if (request.headers['x-api-key'] === undefined) return sendError(response, 401, 'authentication_error', 'x-api-key header is required');
  if (request.headers['anthropic-version'] === undefined) {
    return sendError(response, 400, 'invalid_request_error', 'anthropic-version header is required');
  }
  if (!isRecord(body) || typeof body['model'] !== 'string' || !Array.isArray(body['messages'])) {
    return sendError(response, 400, 'invalid_request_error', 'model and messages are required');
  }
  const inputTokens = Math.ceil(requestText(body).length / 4);
  if (request.url === '/v1/messages/count_tokens') return sendJson(response, 200, { input_tokens: inputTokens });
  if (request.url !== '/v1/messages') return sendError(response, 404, 'not_found_error', `no route ${request.url}`);

  const model = body['model'];
  const attempt = (attemptCounts.get(model) ?? 0) + 1;
  attemptCounts.set(model, attempt);
  const failure = /fail-(429|500)(?:-(\d+))?/.exec(model);
  if (failure !== null && (failure[2] === undefined || attempt <= Number(failure[2]))) {
    return failure[1] === '429'
      ? sendError(response, 429, 'rate_limit_error', 'Number of requests has exceeded your rate limit', { 'retry-after': '1' })
      : sendError(response, 500, 'api_error', 'Internal server error');
  }
  if (model.includes('fail-midstream') && body['stream'] !== true) return void response.socket?.destroy();

  const plan = planAnswer(model, body);
  const words = (text: string | undefined) => (text === undefined ? [] : text.split(/\s+/).filter((word) => word !== ''));
  let stopReason = plan.tool === undefined ? 'end_turn' : 'tool_use';
  const maxTokens = typeof body['max_tokens'] === 'number' ? body['max_tokens'] : Infinity;
  if (plan.text !== undefined && words(plan.text).length > maxTokens) {
    plan.text = words(plan.text).slice(0, maxTokens).join(' ');
    stopReason = 'max_tokens';
  }
  const outputTokens = words(plan.thinking).length + words(plan.text).length + (plan.tool === undefined ? 0 : words(JSON.stringify(plan.tool.input)).length);
  const cacheRead = model.includes('cached') ? Math.floor(inputTokens / 2) : 0;
  const usage = { input_tokens: inputTokens - cacheRead, cache_read_input_tokens: cacheRead, cache_creation_input_tokens: 0 };
  const id = `msg_fake_${hashOf(body)}`;

  const content: Block[] = [];
  if (plan.thinking !== undefined) content.push({ type: 'thinking', thinking: plan.thinking, signature: plan.signature });
  if (plan.text !== undefined) content.push({ type: 'text', text: plan.text });
  if (plan.tool !== undefined) content.push({ type: 'tool_use', ...plan.tool });

  if (body['stream'] !== true) {
    return sendJson(response, 200, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { ...usage, output_tokens: outputTokens },
    });
  }

  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: Record<string, unknown>) => response.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send('message_start', {
    message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  });
  send('ping', {});
  if (model.includes('stream-error')) {
    send('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
    return void response.end();
  }
  if (model.includes('fail-midstream')) {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: chunks(plan.text ?? 'ok')[0] ?? 'ok' } });
    // Destroy only once those bytes are flushed, so the client sees a partial stream.
    return void response.write(': cut\n\n', () => response.socket?.destroy());
  }
  content.forEach((block, index) => {
    if (block.type === 'thinking') {
      send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const piece of chunks(plan.thinking ?? '')) send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } });
      send('content_block_delta', { index, delta: { type: 'signature_delta', signature: plan.signature } });
    } else if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const piece of chunks(plan.text ?? '')) send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    } else if (plan.tool !== undefined) {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: plan.tool.id, name: plan.tool.name, input: {} } });
      const json = JSON.stringify(plan.tool.input);
      const middle = Math.floor(json.length / 2);
      // Like upstream: an empty first delta, then the JSON in arbitrary slices.
      for (const piece of ['', json.slice(0, middle), json.slice(middle)]) {
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
      }
    }
    send('content_block_stop', { index });
  });
  send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } });
  send('message_stop', {});
  response.end();
}

function planAnswer(model: string, body: Record<string, unknown>): Plan {
  const messages = asArray(body['messages']).filter(isRecord);
  const lastUser = [...messages].reverse().find((message) => message['role'] === 'user');
  const lastUserBlocks = blocksOf(lastUser?.['content']);
  const toolResult = lastUserBlocks.find((block) => block.type === 'tool_result');
  const lastText = [...lastUserBlocks].reverse().find((block) => block.type === 'text')?.['text'];
  const answer = typeof lastText === 'string' ? lastText : 'ok';
  const plan: Plan = {};
  if (model.includes('thinking')) {
    plan.thinking = 'Let me think about it.';
    plan.signature = `sig_${createHash('sha256').update(answer).digest('hex').slice(0, 16)}`;
  }
  const firstTool = asArray(body['tools']).find(isRecord);
  if (model.includes('tool') && firstTool !== undefined && toolResult === undefined) {
    const turns = messages.filter((message) => message['role'] === 'assistant').length;
    plan.tool = { id: `toolu_fake_${turns}`, name: String(firstTool['name']), input: argumentsFor(firstTool['input_schema'], answer) };
  } else {
    plan.text = toolResult === undefined ? answer : `The tool said: ${textOf(toolResult['content'])}`;
  }
  return plan;
}

function argumentsFor(schema: unknown, text: string): Record<string, unknown> {
  const properties = isRecord(schema) && isRecord(schema['properties']) ? schema['properties'] : {};
  const input: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    const type = isRecord(property) ? property['type'] : undefined;
    if (type === 'string') input[name] = text;
    else if (type === 'number' || type === 'integer') input[name] = 42;
    else if (type === 'boolean') input[name] = true;
  }
  return input;
}

/** Every piece of text the request carries, for the token estimate. */
function requestText(body: Record<string, unknown>): string {
  const system = body['system'];
  let text =
    typeof system === 'string'
      ? system
      : blocksOf(system)
          .map((block) => textOf(block['text']))
          .join('');
  for (const message of asArray(body['messages']).filter(isRecord)) {
    for (const block of blocksOf(message['content'])) {
      if (block.type === 'text') text += textOf(block['text']);
      else if (block.type === 'tool_result') text += textOf(block['content']);
      else if (block.type === 'tool_use') text += JSON.stringify(block['input']);
      else if (block.type === 'thinking') text += textOf(block['thinking']);
    }
  }
  return text;
}

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return asArray(content).filter((block): block is Block => isRecord(block) && typeof block['type'] === 'string');
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  return blocksOf(value)
    .map((block) => (typeof block['text'] === 'string' ? block['text'] : ''))
    .join('');
}

/** Splits text into word-sized deltas that concatenate back to the original. */
function chunks(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function hashOf(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 12);
}

function sendError(response: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  sendJson(response, status, { type: 'error', error: { type, message } }, headers);
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
