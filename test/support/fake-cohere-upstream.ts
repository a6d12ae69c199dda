/**
 * A deterministic fake of Cohere's v2 Chat API (`POST /v2/chat`) on 127.0.0.1 (random
 * port), checking what Cohere checks and answering as Cohere does.
 *
 * - `Authorization: Bearer <key>` must name one of the fake's keys, else Cohere's 401
 *   `{"id": …, "message": "invalid api token"}`.
 * - The body is checked the way Cohere's API refuses bodies: an unknown top-level field, a
 *   `tool_choice` other than `REQUIRED` or `NONE`, a message role other than system, user,
 *   assistant and tool, or a tool message without `tool_call_id` is a 400 with a message.
 * - Streams are `text/event-stream` with Cohere's events (`event:` line and a `type` in the
 *   data): message-start, content-start, content-delta, content-end, tool-plan-delta,
 *   tool-call-start, tool-call-delta, tool-call-end, message-end, each event written apart.
 *
 * Behaviour is picked by substrings of the model name:
 * - default: answers with the last user text;
 * - `tool`: without a tool message after the last user turn, plans ("I will call <name>.")
 *   and calls the first tool (string properties get the last user text, others 42), id
 *   `<name>_fake<turns>`; with one, answers `The tool said: <its content>`;
 * - `fail-429`: Cohere's 429 with `Retry-After: 30`.
 * Usage: billed input tokens = ceil(characters of the messages' text / 4), billed output
 * tokens = words emitted (plan, text, tool name and arguments); `tokens` add 7 input tokens
 * for the prompt template Cohere wraps around them.
 *
 * `POST /v2/embed` (Cohere's v2 Embed API) checks what Cohere checks: known fields only, a
 * `model`, an `input_type` of search_document, search_query, classification or clustering,
 * 1 to 96 `texts`, `embedding_types` of known types, and `output_dimension` (256, 512, 1024
 * or 1536) on embed-v4 models only. It answers `embeddings_by_type` with a bag-of-words
 * vector per text for each type asked (float when none), `output_dimension` long (1024 by
 * default), billed input tokens = ceil(characters of each text / 4) summed.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bagOfWordsVector } from './bag-of-words-embedding.ts';

export type CohereRequest = { path: string; headers: Record<string, string>; body: Record<string, unknown> };

export type FakeCohere = {
  /** The origin, as COHERE_BASE_URL takes it. */
  url: string;
  /** Requests that passed authentication and the body checks. */
  requests: CohereRequest[];
  /** Requests refused: their path and why. */
  refused: Array<{ path: string; status: number; message: string }>;
  attempts(model: string): number;
  close(): Promise<void>;
};

type Json = Record<string, unknown>;
type Plan = { plan?: string; text?: string; tool?: { id: string; name: string; arguments: string } };

/** The top-level fields of Cohere's v2 chat request. */
const KNOWN_FIELDS = new Set([
  'model',
  'messages',
  'stream',
  'tools',
  'strict_tools',
  'documents',
  'citation_options',
  'response_format',
  'safety_mode',
  'max_tokens',
  'stop_sequences',
  'temperature',
  'seed',
  'frequency_penalty',
  'presence_penalty',
  'k',
  'p',
  'logprobs',
  'tool_choice',
  'thinking',
  'priority',
]);
const TEMPLATE_TOKENS = 7;

export async function startFakeCohereUpstream(options: { apiKeys: string[] }): Promise<FakeCohere> {
  const keys = new Set(options.apiKeys);
  const requests: CohereRequest[] = [];
  const refused: FakeCohere['refused'] = [];
  const attemptCounts = new Map<string, number>();
  const refuse = (response: ServerResponse, path: string, status: number, message: string, headers: Record<string, string> = {}) => {
    refused.push({ path, status, message });
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify({ id: randomUUID(), message }));
  };

  const server = createServer((request, response) => {
    void readBody(request).then((raw) => {
      const path = request.url ?? '/';
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      const key = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
      if (key === undefined || !keys.has(key)) return refuse(response, path, 401, 'invalid api token');
      if (request.method !== 'POST' || (path !== '/v2/chat' && path !== '/v2/embed')) return refuse(response, path, 404, `no route at ${request.method} ${path}`);
      let body: Json;
      try {
        const parsed = JSON.parse(raw) as unknown;
        if (!isRecord(parsed)) throw new Error('not an object');
        body = parsed;
      } catch {
        return refuse(response, path, 400, 'invalid request: body is not valid JSON');
      }
      if (path === '/v2/embed') {
        const refusal = validateEmbed(body);
        if (refusal !== undefined) return refuse(response, path, 400, `invalid request: ${refusal}`);
        requests.push({ path, headers, body });
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end(JSON.stringify(embedAnswer(body)));
      }
      const problem = validate(body);
      if (problem !== undefined) return refuse(response, path, 400, `invalid request: ${problem}`);
      const model = String(body['model']);
      attemptCounts.set(model, (attemptCounts.get(model) ?? 0) + 1);
      if (model.includes('fail-429')) return refuse(response, path, 429, 'You are using a Trial key, which is limited to 10 API calls / minute.', { 'retry-after': '30' });
      requests.push({ path, headers, body });
      const plan = planAnswer(model, body);
      const usage = usageOf(body, plan);
      const finish = plan.tool === undefined ? 'COMPLETE' : 'TOOL_CALL';
      const id = randomUUID();
      if (body['stream'] === true) return streamAnswer(response, id, plan, finish, usage);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id,
          finish_reason: finish,
          message: {
            role: 'assistant',
            ...(plan.text === undefined ? {} : { content: [{ type: 'text', text: plan.text }] }),
            ...(plan.plan === undefined ? {} : { tool_plan: plan.plan }),
            ...(plan.tool === undefined ? {} : { tool_calls: [{ id: plan.tool.id, type: 'function', function: { name: plan.tool.name, arguments: plan.tool.arguments } }] }),
          },
          usage,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    refused,
    attempts: (model) => attemptCounts.get(model) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const EMBED_FIELDS = new Set(['model', 'input_type', 'texts', 'images', 'inputs', 'embedding_types', 'output_dimension', 'max_tokens', 'truncate']);
const INPUT_TYPES = new Set(['search_document', 'search_query', 'classification', 'clustering', 'image']);
const EMBEDDING_TYPES = new Set(['float', 'int8', 'uint8', 'binary', 'ubinary', 'base64']);
const OUTPUT_DIMENSIONS = new Set([256, 512, 1024, 1536]);

function validateEmbed(body: Json): string | undefined {
  const unknown = Object.keys(body).filter((key) => !EMBED_FIELDS.has(key));
  if (unknown.length > 0) return `unknown field: parameter ${unknown[0]} is not a valid field`;
  if (typeof body['model'] !== 'string') return 'model must be a string';
  if (!INPUT_TYPES.has(String(body['input_type'])))
    return "input_type is required for embed v3 and newer models and must be one of 'search_document', 'search_query', 'classification', 'clustering', 'image'";
  const texts = body['texts'];
  if (!Array.isArray(texts) || texts.length === 0 || texts.some((text) => typeof text !== 'string')) return 'texts must be a non-empty list of strings';
  if (texts.length > 96) return `too many texts: the maximum number of texts per call is 96, got ${texts.length}`;
  const types = body['embedding_types'];
  if (types !== undefined && (!Array.isArray(types) || types.some((type) => !EMBEDDING_TYPES.has(String(type)))))
    return 'embedding_types must be a list of float, int8, uint8, binary, ubinary, base64';
  const dimension = body['output_dimension'];
  if (dimension !== undefined) {
    if (!String(body['model']).startsWith('embed-v4')) return 'output_dimension is only supported for embed-v4.0 and newer models';
    if (!OUTPUT_DIMENSIONS.has(Number(dimension))) return 'output_dimension must be one of 256, 512, 1024, 1536';
  }
  return undefined;
}

function embedAnswer(body: Json): Json {
  const texts = body['texts'] as string[];
  const types = Array.isArray(body['embedding_types']) ? (body['embedding_types'] as string[]) : ['float'];
  const dimensions = typeof body['output_dimension'] === 'number' ? body['output_dimension'] : 1024;
  const vectors = texts.map((text) => bagOfWordsVector(text, dimensions));
  return {
    id: randomUUID(),
    embeddings: Object.fromEntries(types.map((type) => [type, vectors])),
    texts,
    meta: { api_version: { version: '2' }, billed_units: { input_tokens: texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0) } },
    response_type: 'embeddings_by_type',
  };
}

function validate(body: Json): string | undefined {
  const unknown = Object.keys(body).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length > 0) return `unknown field: parameter ${unknown[0]} is not a valid field`;
  if (typeof body['model'] !== 'string') return 'model must be a string';
  if (body['tool_choice'] !== undefined && body['tool_choice'] !== 'REQUIRED' && body['tool_choice'] !== 'NONE') return "tool_choice must be one of 'REQUIRED', 'NONE'";
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0) return 'messages must not be empty';
  for (const message of messages) {
    if (!isRecord(message)) return 'a message must be an object';
    const role = message['role'];
    if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') return `invalid role: ${String(role)}`;
    if (role === 'tool' && typeof message['tool_call_id'] !== 'string') return 'tool message needs a tool_call_id';
  }
  return undefined;
}

function planAnswer(model: string, body: Json): Plan {
  const messages = (body['messages'] as Json[]) ?? [];
  const lastUser = messages.findLastIndex((message) => message['role'] === 'user');
  const userText = lastUser < 0 ? 'ok' : textOf(messages[lastUser]?.['content']);
  const toolResult = messages.slice(lastUser + 1).findLast((message) => message['role'] === 'tool');
  const tools = Array.isArray(body['tools']) ? (body['tools'] as Json[]) : [];
  if (model.includes('tool') && toolResult !== undefined) return { text: `The tool said: ${textOf(toolResult['content'])}` };
  const tool = tools[0]?.['function'];
  if (model.includes('tool') && isRecord(tool) && body['tool_choice'] !== 'NONE') {
    const name = String(tool['name']);
    const parameters = isRecord(tool['parameters']) ? tool['parameters'] : {};
    const properties = isRecord(parameters['properties']) ? parameters['properties'] : {};
    const input = Object.fromEntries(Object.entries(properties).map(([key, schema]) => [key, isRecord(schema) && schema['type'] === 'string' ? userText : 42]));
    return { plan: `I will call ${name}.`, tool: { id: `${name}_fake${messages.length}`, name, arguments: JSON.stringify(input) } };
  }
  return { text: userText === '' ? 'ok' : userText };
}

function usageOf(body: Json, plan: Plan): Json {
  const characters = ((body['messages'] as Json[]) ?? []).reduce((sum, message) => sum + textOf(message['content']).length, 0);
  const input = Math.ceil(characters / 4);
  const output = words(plan.plan) + words(plan.text) + (plan.tool === undefined ? 0 : words(`${plan.tool.name} ${plan.tool.arguments}`));
  return { billed_units: { input_tokens: input, output_tokens: output }, tokens: { input_tokens: input + TEMPLATE_TOKENS, output_tokens: output } };
}

/** Cohere's events, each written apart: text in word-sized deltas, a tool call's arguments in two. */
function streamAnswer(response: ServerResponse, id: string, plan: Plan, finish: string, usage: Json): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const events: Json[] = [{ type: 'message-start', id, delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } } }];
  if (plan.plan !== undefined) for (const piece of pieces(plan.plan)) events.push({ type: 'tool-plan-delta', delta: { message: { tool_plan: piece } } });
  if (plan.text !== undefined) {
    events.push({ type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } });
    for (const piece of pieces(plan.text)) events.push({ type: 'content-delta', index: 0, delta: { message: { content: { text: piece } } } });
    events.push({ type: 'content-end', index: 0 });
  }
  if (plan.tool !== undefined) {
    const half = Math.floor(plan.tool.arguments.length / 2);
    events.push({ type: 'tool-call-start', index: 0, delta: { message: { tool_calls: { id: plan.tool.id, type: 'function', function: { name: plan.tool.name, arguments: '' } } } } });
    for (const part of [plan.tool.arguments.slice(0, half), plan.tool.arguments.slice(half)]) {
      events.push({ type: 'tool-call-delta', index: 0, delta: { message: { tool_calls: { function: { arguments: part } } } } });
    }
    events.push({ type: 'tool-call-end', index: 0 });
  }
  events.push({ type: 'message-end', delta: { finish_reason: finish, usage } });
  const write = (index: number) => {
    const event = events[index];
    if (event === undefined) return response.end();
    response.write(`event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`, () => setImmediate(() => write(index + 1)));
  };
  write(0);
}

/** Words with the space before each kept, so the pieces join back to the text. */
const pieces = (text: string): string[] => text.split(/(?= )/);
const words = (text: string | undefined): number => (text === undefined ? 0 : text.split(/\s+/).filter(Boolean).length);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : '')).join('');
}

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
