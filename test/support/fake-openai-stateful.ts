/**
 * OpenAI's stateful APIs for the fake OpenAI upstream (fake-openai-upstream.ts routes
 * `/v1/files…` and `/v1/responses…` here), in the real wire format:
 *
 *   POST   /v1/files               multipart (`file`, `purpose`) → file object
 *   GET    /v1/files               list;  GET /v1/files/{id} → file object
 *   GET    /v1/files/{id}/content  the uploaded bytes, as uploaded
 *   DELETE /v1/files/{id}          → { id, object: 'file', deleted: true }
 *   POST   /v1/responses           echoes the last user input text; `stream: true` sends the
 *                                  Responses SSE events (`event:` + `data:` with `type` and
 *                                  `sequence_number`), usage only in `response.completed`
 *                                  `background: true` answers `queued` without usage;
 *                                  without `model`, `prompt: {id: 'pmpt_<model>'}` reports <model>
 *                                  (a stored prompt's model)
 *   GET    /v1/responses/{id}      the stored response (a background one is already completed)
 *   POST   /v1/responses/compact   a `response.compaction` of the input, with usage (output: 1 token)
 *   POST   /v1/batches             → a batch object, status `validating`
 *   GET    /v1/responses/{id}/input_items, POST /v1/responses/{id}/cancel, DELETE /v1/responses/{id}
 *   assistants, threads, vector_stores, batches: create (POST), list (GET, every object,
 *                                  like the one provider account all tenants share), GET,
 *                                  modify (POST) and DELETE by id; POST /v1/batches/{id}/cancel;
 *   POST   /v1/threads/{id}/messages, /v1/threads/{id}/runs (and /v1/threads/runs, which
 *                                  creates the thread): `stream: true` sends thread.* events;
 *                                  a run completes at once with usage; GET /v1/threads/{id}/runs/{run_id}
 *   POST   /v1/vector_stores/{id}/files → a vector_store.file whose id is the file's
 *
 * Usage, deterministic like the chat fake: input_tokens = ceil(characters of `instructions`
 * and all input text / 4); output_tokens = whitespace-separated words of the answer
 * (truncated to `max_output_tokens` words, status `incomplete`).
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

type Json = Record<string, unknown>;
type StoredFile = { object: Json; data: Buffer };
type Multipart = { fields: Record<string, string>; files: Array<{ field: string; filename: string; data: Buffer }> };

export type StatefulState = { files: Map<string, StoredFile>; responses: Map<string, Json>; objects: Map<string, Json>; counter: number };

export const createStatefulState = (): StatefulState => ({ files: new Map(), responses: new Map(), objects: new Map(), counter: 0 });

export const isStatefulPath = (path: string): boolean => /^\/v1\/(files|responses|batches|assistants|threads|vector_stores)(\/|$)/.test(path);

/** Id prefix and `object` of the families kept in `objects`. */
const GENERIC: Record<string, { prefix: string; object: string }> = {
  assistants: { prefix: 'asst_fake', object: 'assistant' },
  threads: { prefix: 'thread_fake', object: 'thread' },
  vector_stores: { prefix: 'vs_fake', object: 'vector_store' },
  batches: { prefix: 'batch_fake', object: 'batch' },
};

export async function handleStateful(state: StatefulState, method: string, path: string, body: unknown, response: ServerResponse): Promise<void> {
  const segments = path.split('/').slice(2).map(decodeURIComponent); // ['files', id?, 'content'?], decoded as OpenAI does
  const [family, id, action] = segments;
  if (family === 'files') {
    if (method === 'POST' && id === undefined) return uploadFile(state, body, response);
    if (method === 'GET' && id === undefined) {
      const data = [...state.files.values()].map((file) => file.object);
      return json(response, 200, { object: 'list', data, has_more: false, first_id: data[0]?.['id'] ?? null, last_id: data.at(-1)?.['id'] ?? null });
    }
    const file = id === undefined ? undefined : state.files.get(id);
    if (!file || id === undefined) return notFound(response, `No such File object: ${id ?? ''}`);
    if (method === 'GET' && action === 'content') {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.data.length });
      return void response.end(file.data);
    }
    if (method === 'GET' && action === undefined) return json(response, 200, file.object);
    if (method === 'DELETE' && action === undefined) {
      state.files.delete(id);
      return json(response, 200, { id, object: 'file', deleted: true });
    }
  }
  if (family === 'responses') {
    if (method === 'POST' && id === undefined) return createResponse(state, body, response);
    if (method === 'POST' && id === 'compact') return compactResponse(state, body, response);
    const stored = id === undefined ? undefined : state.responses.get(id);
    if (id !== undefined && !stored) return notFound(response, `Response with id '${id}' not found.`);
    if (stored && method === 'GET' && action === undefined) return json(response, 200, stored);
    if (stored && method === 'GET' && action === 'input_items') return json(response, 200, { object: 'list', data: stored['input_items'] ?? [], has_more: false, first_id: null, last_id: null });
    if (stored && method === 'POST' && action === 'cancel') return json(response, 200, { ...stored, status: 'cancelled' });
    if (stored && method === 'DELETE' && action === undefined) {
      state.responses.delete(stored['id'] as string);
      return json(response, 200, { id: stored['id'], object: 'response', deleted: true });
    }
  }
  if (family !== undefined && GENERIC[family]) return handleGeneric(state, family, method, segments.slice(1), (body ?? {}) as Json, response);
  return json(response, 404, { error: { message: `Invalid URL (${method} ${path})`, type: 'invalid_request_error', param: null, code: null } });
}

function handleGeneric(state: StatefulState, family: string, method: string, rest: string[], request: Json, response: ServerResponse): Promise<void> | void {
  const { prefix, object } = GENERIC[family] ?? { prefix: 'obj_fake', object: 'object' };
  const [id, sub, subId] = rest;
  const create = (fields: Json): Json => {
    state.counter += 1;
    const created = { id: `${prefix}${state.counter}`, object, created_at: Math.floor(Date.now() / 1000), metadata: {}, ...fields };
    state.objects.set(created.id, created);
    return created;
  };
  if (family === 'threads' && id === 'runs' && method === 'POST') return startRun(state, create({}), request, response, true);
  if (id === undefined && method === 'POST') {
    const fields =
      family === 'batches'
        ? { endpoint: '/v1/chat/completions', input_file_id: null, completion_window: '24h', ...request, status: 'validating', request_counts: { total: 0, completed: 0, failed: 0 } }
        : request;
    return json(response, 200, create(fields));
  }
  if (id === undefined && method === 'GET') {
    const data = [...state.objects.values()].filter((entry) => entry['object'] === object);
    return json(response, 200, { object: 'list', data, has_more: false, first_id: data[0]?.['id'] ?? null, last_id: data.at(-1)?.['id'] ?? null });
  }
  const stored = id === undefined ? undefined : state.objects.get(id);
  if (!stored || stored['object'] !== object) return notFound(response, `No ${object} found with id '${id ?? ''}'.`);
  if (sub === undefined && method === 'GET') return json(response, 200, stored);
  if (sub === undefined && method === 'POST') return json(response, 200, Object.assign(stored, request));
  if (sub === undefined && method === 'DELETE') {
    state.objects.delete(stored['id'] as string);
    return json(response, 200, { id: stored['id'], object: `${object}.deleted`, deleted: true });
  }
  if (family === 'batches' && sub === 'cancel' && method === 'POST') return json(response, 200, Object.assign(stored, { status: 'cancelling' }));
  if (family === 'threads' && sub === 'messages' && method === 'POST' && subId === undefined) {
    state.counter += 1;
    const message = {
      id: `msg_fake${state.counter}`,
      object: 'thread.message',
      thread_id: stored['id'],
      role: request['role'] ?? 'user',
      content: request['content'] ?? '',
      attachments: request['attachments'] ?? [],
    };
    state.objects.set(message.id, message);
    return json(response, 200, message);
  }
  if (family === 'threads' && sub === 'messages' && method === 'GET' && subId === undefined) {
    const data = [...state.objects.values()].filter((entry) => entry['object'] === 'thread.message' && entry['thread_id'] === stored['id']);
    return json(response, 200, { object: 'list', data, has_more: false, first_id: data[0]?.['id'] ?? null, last_id: data.at(-1)?.['id'] ?? null });
  }
  if (family === 'threads' && sub === 'runs' && method === 'POST' && subId === undefined) return startRun(state, stored, request, response, false);
  const run = subId === undefined ? undefined : state.objects.get(subId);
  if (family === 'threads' && sub === 'runs' && method === 'GET' && run?.['thread_id'] === stored['id']) return json(response, 200, run);
  if (family === 'vector_stores' && sub === 'files' && method === 'POST' && subId === undefined) {
    return json(response, 200, { id: request['file_id'], object: 'vector_store.file', vector_store_id: stored['id'], status: 'completed', created_at: Math.floor(Date.now() / 1000) });
  }
  return notFound(response, `Invalid URL (${method} /${family}/${rest.join('/')})`);
}

/** A run that completes at once, with chat-style usage; `stream: true` sends thread.* events. */
async function startRun(state: StatefulState, thread: Json, request: Json, response: ServerResponse, newThread: boolean): Promise<void> {
  state.counter += 1;
  const run = {
    id: `run_fake${state.counter}`,
    object: 'thread.run',
    created_at: Math.floor(Date.now() / 1000),
    thread_id: thread['id'],
    assistant_id: request['assistant_id'] ?? null,
    model: typeof request['model'] === 'string' ? request['model'] : 'test-echo',
    status: 'completed',
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  };
  state.objects.set(run.id, run);
  if (request['stream'] !== true) return json(response, 200, run);
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const send = async (event: string, data: Json) => {
    response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    await sleep(1);
  };
  if (newThread) await send('thread.created', thread);
  await send('thread.run.created', { ...run, status: 'queued', usage: null });
  await send('thread.run.completed', run);
  response.write('event: done\ndata: [DONE]\n\n');
  response.end();
}

function uploadFile(state: StatefulState, body: unknown, response: ServerResponse): void {
  const form = (body ?? {}) as Multipart;
  const file = form.files?.find((entry) => entry.field === 'file');
  if (!file || !form.fields?.['purpose']) {
    return json(response, 400, { error: { message: "Missing 'file' or 'purpose'", type: 'invalid_request_error', param: null, code: null } });
  }
  state.counter += 1;
  const id = `file-fake${state.counter}`;
  const object = {
    id,
    object: 'file',
    bytes: file.data.length,
    created_at: Math.floor(Date.now() / 1000),
    filename: file.filename,
    purpose: form.fields['purpose'],
    status: 'processed',
    expires_at: null,
    status_details: null,
  };
  state.files.set(id, { object, data: file.data });
  json(response, 200, object);
}

async function createResponse(state: StatefulState, body: unknown, response: ServerResponse): Promise<void> {
  const request = (body ?? {}) as Json;
  const model = typeof request['model'] === 'string' ? request['model'] : promptModel(request['prompt']);
  const inputText = textsOf(request['input']);
  const instructions = typeof request['instructions'] === 'string' ? request['instructions'] : '';
  const inputTokens = Math.ceil((instructions.length + inputText.reduce((sum, text) => sum + text.length, 0)) / 4);
  let words = (inputText.at(-1) ?? 'ok').split(/\s+/).filter(Boolean);
  const cap = typeof request['max_output_tokens'] === 'number' ? request['max_output_tokens'] : undefined;
  const truncated = cap !== undefined && words.length > cap;
  if (truncated) words = words.slice(0, cap);
  state.counter += 1;
  const id = `resp_fake${state.counter}`;
  const messageId = `msg_fake${state.counter}`;
  const text = words.join(' ');
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: words.length,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + words.length,
  };
  const base = {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model,
    error: null,
    incomplete_details: truncated ? { reason: 'max_output_tokens' } : null,
    instructions: instructions || null,
    max_output_tokens: cap ?? null,
    metadata: {},
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
  };
  const message = { type: 'message', id: messageId, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
  const final = { ...base, status: truncated ? 'incomplete' : 'completed', output: [message], usage };
  state.responses.set(id, final);
  // A background response answers queued at once; a later GET finds it finished, with usage.
  if (request['background'] === true) return json(response, 200, { ...base, background: true, status: 'queued', output: [], usage: null });
  if (request['stream'] !== true) return json(response, 200, final);

  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  let sequence = 0;
  const send = async (type: string, data: Json) => {
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
    await sleep(1);
  };
  const pending = { ...base, status: 'in_progress', output: [], usage: null };
  await send('response.created', { response: pending });
  await send('response.in_progress', { response: pending });
  await send('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } });
  await send('response.content_part.added', { item_id: messageId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
  for (const [index, word] of words.entries()) {
    await send('response.output_text.delta', { item_id: messageId, output_index: 0, content_index: 0, delta: index === 0 ? word : ` ${word}`, logprobs: [] });
  }
  await send('response.output_text.done', { item_id: messageId, output_index: 0, content_index: 0, text, logprobs: [] });
  await send('response.content_part.done', { item_id: messageId, output_index: 0, content_index: 0, part: { type: 'output_text', text, annotations: [] } });
  await send('response.output_item.done', { output_index: 0, item: message });
  await send(truncated ? 'response.incomplete' : 'response.completed', { response: final });
  response.end();
}

const promptModel = (prompt: unknown): string => {
  const id = typeof prompt === 'object' && prompt !== null ? Reflect.get(prompt, 'id') : undefined;
  return typeof id === 'string' && id.startsWith('pmpt_') ? id.slice('pmpt_'.length) : '';
};

function compactResponse(state: StatefulState, body: unknown, response: ServerResponse): void {
  const request = (body ?? {}) as Json;
  const inputTokens = Math.ceil(textsOf(request['input']).reduce((sum, text) => sum + text.length, 0) / 4);
  state.counter += 1;
  json(response, 200, {
    id: `resp_compact${state.counter}`,
    object: 'response.compaction',
    created_at: Math.floor(Date.now() / 1000),
    output: [{ type: 'compaction', id: `cmp_fake${state.counter}`, encrypted_content: 'opaque' }],
    usage: { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + 1 },
  });
}

/** Text of `input`: a string, or message items whose content is a string or input_text parts. */
function textsOf(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input)) return [];
  return input.flatMap((item: unknown) => {
    const content = typeof item === 'object' && item !== null ? Reflect.get(item, 'content') : undefined;
    if (typeof content === 'string') return [content];
    if (!Array.isArray(content)) return [];
    return content.flatMap((part: unknown) => {
      const text = typeof part === 'object' && part !== null ? Reflect.get(part, 'text') : undefined;
      return typeof text === 'string' ? [text] : [];
    });
  });
}

function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

const notFound = (response: ServerResponse, message: string) => json(response, 404, { error: { message, type: 'invalid_request_error', param: null, code: null } });
