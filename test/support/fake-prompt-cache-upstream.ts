/**
 * One fake upstream on 127.0.0.1 speaking three wire formats, each reporting provider
 * prompt-cache usage with fixed numbers, for the response cache and cache-pricing tests:
 *
 * - `${url}/openai/v1` — OpenAI chat completions (plain and SSE with include_usage):
 *   usage `prompt_tokens` 2000 with `prompt_tokens_details.cached_tokens` 1500,
 *   `completion_tokens` 100;
 * - `${url}/anthropic/v1` — Anthropic messages (plain and SSE): `input_tokens` 200,
 *   `cache_read_input_tokens` 1500, `cache_creation_input_tokens` 300, `output_tokens` 100;
 * - `${url}/gemini/v1beta` — Gemini generateContent / streamGenerateContent?alt=sse:
 *   `promptTokenCount` 2000 with `cachedContentTokenCount` 1500, `candidatesTokenCount` 100.
 *
 * The answer is `echo: <last user text>`, streamed in two pieces. A last user text that
 * contains `slow` streams its pieces 150 ms apart (a client can hang up in between).
 * `requests` records every call, so a test can tell whether a provider was asked.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FakeUpstream, startRecordingServer } from './recording-server.ts';

export const FAKE_USAGE = {
  openai: { prompt: 2000, cached: 1500, completion: 100 },
  anthropic: { input: 200, cacheRead: 1500, cacheWrite: 300, output: 100 },
  gemini: { prompt: 2000, cached: 1500, candidates: 100 },
} as const;

export type PromptCacheUpstream = FakeUpstream & { openaiUrl: string; anthropicUrl: string; geminiUrl: string; count(prefix: string): number };

export async function startPromptCacheUpstream(): Promise<PromptCacheUpstream> {
  const server = await startRecordingServer('', (request, response, body) => void handle(request, response, body));
  return {
    ...server,
    openaiUrl: `${server.url}/openai/v1`,
    anthropicUrl: `${server.url}/anthropic/v1`,
    geminiUrl: `${server.url}/gemini/v1beta`,
    count: (prefix) => server.requests.filter((recorded) => recorded.path.startsWith(prefix)).length,
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The text of the last user turn in any of the three formats. */
function lastUserText(body: Record<string, unknown>): string {
  const list = body.messages ?? body.contents;
  const turns = (Array.isArray(list) ? list : []).filter(isRecord);
  const last = turns.filter((turn) => turn.role === 'user').at(-1);
  if (!last) return '';
  const content = last.content ?? last.parts;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isRecord)
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .join('');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function handle(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
  const path = request.url ?? '';
  if (!isRecord(body)) return void response.writeHead(400).end();
  const text = lastUserText(body);
  const pieces = ['echo: ', text];
  const delay = text.includes('slow') ? 150 : 0;
  const sse = async (frames: Array<{ event?: string; data: unknown }>) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const [index, frame] of frames.entries()) {
      if (delay > 0 && index > 1) await sleep(delay);
      if (response.destroyed) return;
      response.write(`${frame.event ? `event: ${frame.event}\n` : ''}data: ${JSON.stringify(frame.data)}\n\n`);
    }
    response.end();
  };
  const json = (value: unknown): void => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  };

  if (path === '/openai/v1/chat/completions') {
    const model = String(body.model);
    const usage = {
      prompt_tokens: FAKE_USAGE.openai.prompt,
      completion_tokens: FAKE_USAGE.openai.completion,
      total_tokens: FAKE_USAGE.openai.prompt + FAKE_USAGE.openai.completion,
      prompt_tokens_details: { cached_tokens: FAKE_USAGE.openai.cached },
    };
    const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1, model };
    if (body.stream !== true) {
      return json({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: pieces.join('') }, finish_reason: 'stop' }], usage });
    }
    return sse([
      ...pieces.map((piece, index) => ({ data: { ...base, choices: [{ index: 0, delta: index === 0 ? { role: 'assistant', content: piece } : { content: piece }, finish_reason: null }] } })),
      { data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] } },
      { data: { ...base, choices: [], usage } },
    ]).then(() => undefined);
  }

  if (path === '/anthropic/v1/messages') {
    const usage = {
      input_tokens: FAKE_USAGE.anthropic.input,
      cache_read_input_tokens: FAKE_USAGE.anthropic.cacheRead,
      cache_creation_input_tokens: FAKE_USAGE.anthropic.cacheWrite,
      output_tokens: FAKE_USAGE.anthropic.output,
    };
    const message = { id: 'msg_fake', type: 'message', role: 'assistant', model: String(body.model), stop_sequence: null };
    if (body.stream !== true) return json({ ...message, content: [{ type: 'text', text: pieces.join('') }], stop_reason: 'end_turn', usage });
    return sse([
      { event: 'message_start', data: { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } } },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
      ...pieces.map((piece) => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } } })),
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: FAKE_USAGE.anthropic.output } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
  }

  const gemini = /^\/gemini\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent)/.exec(path);
  if (gemini) {
    const usageMetadata = {
      promptTokenCount: FAKE_USAGE.gemini.prompt,
      candidatesTokenCount: FAKE_USAGE.gemini.candidates,
      cachedContentTokenCount: FAKE_USAGE.gemini.cached,
      totalTokenCount: FAKE_USAGE.gemini.prompt + FAKE_USAGE.gemini.candidates,
    };
    const chunk = (piece: string, last: boolean) => ({
      candidates: [{ index: 0, content: { role: 'model', parts: [{ text: piece }] }, ...(last && { finishReason: 'STOP' }) }],
      ...(last && { usageMetadata }),
      modelVersion: gemini[1],
    });
    if (gemini[2] === 'generateContent') return json(chunk(pieces.join(''), true));
    return sse(pieces.map((piece, index) => ({ data: chunk(piece, index === pieces.length - 1) })));
  }
  response.writeHead(404).end();
}
