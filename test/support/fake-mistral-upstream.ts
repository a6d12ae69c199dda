/**
 * A deterministic fake of Mistral's chat API (`POST /v1/chat/completions`) on 127.0.0.1
 * (random port), refusing what Mistral refuses and answering as Mistral does.
 *
 * - `Authorization: Bearer <key>` must name one of the fake's keys, else a 401.
 * - Mistral's validation: a field it does not know (OpenAI's `seed`, `stream_options`,
 *   `max_completion_tokens`, `user`…) is a 422 `extra_forbidden` naming it; a tool-call id
 *   that is not nine letters and digits, or a `tool_choice` other than auto, none, any or
 *   a named function, is a 400.
 * - Answers are OpenAI-shaped; tool-call ids are nine letters and digits. A stream's last
 *   chunk carries the finish reason and the usage together (no `stream_options` needed),
 *   then `[DONE]`; a tool call comes whole in one chunk.
 *
 * Behaviour by model name: `tool` calls the first tool (string properties get the last
 * user text) until a tool message follows the last user turn, then answers
 * `The tool said: <its content>`; `fail-429` is a 429 with `Retry-After: 30`; anything
 * else echoes the last user text, prefixed by the text of a final assistant message sent
 * with `prefix: true`; `magistral` answers as Mistral's reasoning models do, `content` a list
 * of chunks ("Let me think." as a `thinking` chunk, then the text), streamed as such lists too. Usage: prompt tokens = ceil(characters of message text / 4),
 * completion tokens = words emitted.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type MistralRequest = { headers: Record<string, string>; body: Record<string, unknown> };

export type FakeMistral = {
  /** The API root, as MISTRAL_BASE_URL takes it (`…/v1`). */
  url: string;
  requests: MistralRequest[];
  refused: Array<{ status: number; detail: string }>;
  close(): Promise<void>;
};

type Json = Record<string, unknown>;

const KNOWN_FIELDS = new Set([
  'model',
  'messages',
  'temperature',
  'top_p',
  'max_tokens',
  'stream',
  'stop',
  'random_seed',
  'metadata',
  'response_format',
  'tools',
  'tool_choice',
  'presence_penalty',
  'frequency_penalty',
  'n',
  'prediction',
  'parallel_tool_calls',
  'prompt_mode',
  'safe_prompt',
]);
const TOOL_CALL_ID = /^[A-Za-z0-9]{9}$/;

export async function startFakeMistralUpstream(options: { apiKeys: string[] }): Promise<FakeMistral> {
  const keys = new Set(options.apiKeys);
  const requests: MistralRequest[] = [];
  const refused: FakeMistral['refused'] = [];
  const send = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
  const server = createServer((request, response) => {
    void readBody(request).then((raw) => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      const key = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
      if (key === undefined || !keys.has(key)) {
        refused.push({ status: 401, detail: 'Unauthorized' });
        return send(response, 401, { message: 'Unauthorized', request_id: randomUUID() });
      }
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') return send(response, 404, { detail: 'Not Found' });
      const body = JSON.parse(raw) as Json;
      const extra = Object.keys(body).find((field) => !KNOWN_FIELDS.has(field));
      if (extra !== undefined) {
        refused.push({ status: 422, detail: `extra_forbidden ${extra}` });
        return send(response, 422, {
          object: 'error',
          message: { detail: [{ type: 'extra_forbidden', loc: ['body', extra], msg: 'Extra inputs are not permitted', input: body[extra] }] },
          type: 'invalid_request_message_error',
          param: null,
          code: null,
        });
      }
      const problem = checkBody(body);
      if (problem !== undefined) {
        refused.push({ status: 400, detail: problem });
        return send(response, 400, { object: 'error', message: problem, type: 'invalid_request_message_error', param: null, code: null });
      }
      const model = String(body['model']);
      if (model.includes('fail-429')) return send(response, 429, { message: 'Requests rate limit exceeded', request_id: randomUUID() }, { 'retry-after': '30' });
      requests.push({ headers, body });
      answer(response, model, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function checkBody(body: Json): string | undefined {
  const choice = body['tool_choice'];
  if (choice !== undefined && typeof choice === 'string' && !['auto', 'none', 'any'].includes(choice)) return `Invalid tool_choice: ${choice}`;
  for (const message of (body['messages'] as Json[]) ?? []) {
    const ids = [message['tool_call_id'], ...((message['tool_calls'] as Json[] | undefined) ?? []).map((call) => call['id'])];
    for (const id of ids) {
      if (id !== undefined && (typeof id !== 'string' || !TOOL_CALL_ID.test(id))) return `Tool call id was ${String(id)} but must be a-z, A-Z, 0-9, with a length of 9.`;
    }
  }
  return undefined;
}

function answer(response: ServerResponse, model: string, body: Json): void {
  const messages = (body['messages'] as Json[]) ?? [];
  const lastUser = messages.findLastIndex((message) => message['role'] === 'user');
  const userText = lastUser < 0 ? 'ok' : textOf(messages[lastUser]?.['content']);
  const toolResult = messages.slice(lastUser + 1).findLast((message) => message['role'] === 'tool');
  const tool = ((body['tools'] as Json[] | undefined) ?? [])[0]?.['function'] as Json | undefined;
  let text: string | undefined;
  let call: { id: string; name: string; arguments: string } | undefined;
  if (model.includes('tool') && toolResult !== undefined) text = `The tool said: ${textOf(toolResult['content'])}`;
  else if (model.includes('tool') && tool !== undefined && body['tool_choice'] !== 'none') {
    const properties = ((tool['parameters'] as Json | undefined)?.['properties'] as Json | undefined) ?? {};
    const input = Object.fromEntries(Object.entries(properties).map(([key, schema]) => [key, (schema as Json)['type'] === 'string' ? userText : 42]));
    call = { id: `Mst${String(messages.length).padStart(6, '0')}`, name: String(tool['name']), arguments: JSON.stringify(input) };
  } else {
    const last = messages.at(-1);
    const prefix = last?.['role'] === 'assistant' && last['prefix'] === true ? textOf(last['content']) : '';
    text = `${prefix}${userText}`;
  }
  const characters = messages.reduce((sum, message) => sum + textOf(message['content']).length, 0);
  const completion = (text ?? `${call?.name} ${call?.arguments}`).split(/\s+/).filter(Boolean).length;
  const usage = { prompt_tokens: Math.ceil(characters / 4), completion_tokens: completion, total_tokens: Math.ceil(characters / 4) + completion };
  const finish = call === undefined ? 'stop' : 'tool_calls';
  const thinking = model.includes('magistral') ? { type: 'thinking', thinking: [{ type: 'text', text: 'Let me think.' }] } : undefined;
  const id = randomUUID().replaceAll('-', '');
  const created = Math.floor(Date.now() / 1000);
  const toolCalls = call === undefined ? undefined : [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments }, index: 0 }];
  if (body['stream'] !== true) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: thinking === undefined ? (text ?? '') : [thinking, { type: 'text', text: text ?? '' }], tool_calls: toolCalls ?? null, prefix: false },
            finish_reason: finish,
          },
        ],
        usage,
      }),
    );
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: Json, finishReason: string | null, extra: Json = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
  const parts = [chunk({ role: 'assistant', content: '' }, null)];
  if (thinking !== undefined) parts.push(chunk({ content: [thinking] }, null));
  if (text !== undefined) for (const piece of text.split(/(?= )/)) parts.push(chunk({ content: thinking === undefined ? piece : [{ type: 'text', text: piece }] }, null));
  if (toolCalls !== undefined) parts.push(chunk({ tool_calls: toolCalls }, null));
  parts.push(chunk({ content: '' }, finish, { usage }), 'data: [DONE]\n\n');
  const write = (index: number) => {
    const part = parts[index];
    if (part === undefined) return response.end();
    response.write(part, () => setImmediate(() => write(index + 1)));
  };
  write(0);
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof part === 'object' && part !== null && typeof (part as Json)['text'] === 'string' ? (part as Json)['text'] : '')).join('');
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
