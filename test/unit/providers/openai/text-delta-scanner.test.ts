import { describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../../../src/core/model-types.ts';
import { readSseBatches } from '../../../../src/providers/http/sse-events.ts';
import { mapChatStream } from '../../../../src/providers/openai/map-chat-stream.ts';
import { mapUsage } from '../../../../src/providers/openai/map-chat-response.ts';
import type { OpenAIUsage } from '../../../../src/providers/openai/openai-wire-schemas.ts';
import { isPlainUsage } from '../../../../src/providers/openai/plain-usage.ts';
import { TextDeltaScanner } from '../../../../src/providers/openai/text-delta-scanner.ts';
import { seededRandom, type SeededRandom } from '../../../support/generated-requests.ts';

// OpenAI's chunks as they come today (service tier, fingerprint, obfuscation padding).
const OPENING = '{"id":"chatcmpl-D0q8","object":"chat.completion.chunk","created":1769092764,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_29330a9688",';
const roleChunk = `${OPENING}"choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"obfuscation":"x1"}`;
const textChunk = (json: string, tail = ',"obfuscation":"ZGF"') => `${OPENING}"choices":[{"index":0,"delta":{"content":${json}},"logprobs":null,"finish_reason":null}]${tail}}`;
const finishChunk = `${OPENING}"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"obfuscation":"a"}`;
const usageChunk = `${OPENING}"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}`;

describe('TextDeltaScanner', () => {
  it('reads the text of OpenAI text chunks once it has learned their opening, and nothing else', () => {
    const scanner = new TextDeltaScanner();
    expect(scanner.read(textChunk('"Hello"'))).toBeUndefined(); // nothing learned yet
    scanner.learn(roleChunk);
    // The first chunk's role and empty refusal carry nothing the mapping reads: its (empty) text.
    expect(scanner.read(roleChunk)).toBe('');
    expect(scanner.read(roleChunk.replace('"content":""', '"content":"Hi"'))).toBe('Hi');
    expect(scanner.read(roleChunk.replace('"role":"assistant"', '"role":"user"'))).toBeUndefined();
    expect(scanner.read(roleChunk.replace('"refusal":null', '"refusal":"no"'))).toBeUndefined();
    expect(scanner.read(textChunk('"Hello"'))).toBe('Hello');
    expect(scanner.read(textChunk('" world"', ',"usage":null,"obfuscation":"lRK2aBv"'))).toBe(' world');
    expect(scanner.read(textChunk('"plain"', ''))).toBe('plain');
    expect(scanner.read(textChunk('""'))).toBe('');
    // Escapes come out as JSON.parse gives them.
    const tricky = 'say "hi"\\\n\tCafé ☕ 😀 \u0001 </script>';
    expect(scanner.read(textChunk(JSON.stringify(tricky)))).toBe(tricky);
    expect(scanner.read(textChunk('"\\u00e9\\ud83d\\ude00"'))).toBe('é😀');
    // The chunks the mapping must parse whole.
    expect(scanner.read(finishChunk)).toBeUndefined();
    expect(scanner.read(usageChunk)).toBeUndefined();
    expect(scanner.read(textChunk('"x"', ',"usage":{"prompt_tokens":1}'))).toBeUndefined();
    expect(scanner.read(`${OPENING}"choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":"stop"}]}`)).toBeUndefined();
    expect(scanner.read(`${OPENING}"choices":[{"index":0,"delta":{"content":"x","reasoning":"y"},"finish_reason":null}]}`)).toBeUndefined();
    expect(scanner.read(textChunk('"x"').replace('"id":"chatcmpl-D0q8"', '"id":"chatcmpl-other"'))).toBeUndefined();
  });

  it('leaves malformed text to the parser, which reports it', () => {
    const scanner = new TextDeltaScanner();
    scanner.learn(roleChunk);
    expect(scanner.read(textChunk('"bad \\x escape"'))).toBeUndefined();
    expect(scanner.read(textChunk('"raw \u0001 control"'))).toBeUndefined();
    expect(scanner.read(`${OPENING}"choices":[{"index":0,"delta":{"content":"unterminated`)).toBeUndefined();
    expect(scanner.read(textChunk('"x"', ',"obfuscation":"a"} trailing'))).toBeUndefined();
  });

  it('never keeps an opening that carries usage, an error or anything but metadata', () => {
    for (const opening of ['{"id":"a","usage":{"prompt_tokens":1},', '{"id":"a","error":null,', '{"id":"a","x_groq":{"id":"q"},', '{"id":"a","meta":{"choices":[1]},', '{"id":"a","meta":{']) {
      const scanner = new TextDeltaScanner();
      const chunk = `${opening}"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`;
      scanner.learn(chunk);
      expect(scanner.read(chunk), opening).toBeUndefined();
    }
  });

  it('answers only what JSON.parse would give, over generated chunks (both paths exercised)', () => {
    const rng = seededRandom(14);
    let read = 0;
    let declined = 0;
    for (let index = 0; index < 8_000; index += 1) {
      const scanner = new TextDeltaScanner();
      const opening = generatedOpening(rng);
      const learned = `${opening}"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`;
      if (!parses(learned)) continue;
      scanner.learn(learned);
      const data = `${rng.next() < 0.9 ? opening : generatedOpening(rng)}${generatedRest(rng)}`;
      const text = scanner.read(data);
      if (text === undefined) {
        declined += 1;
        continue;
      }
      read += 1;
      const parsed = JSON.parse(data) as Record<string, unknown>;
      const choices = parsed.choices as Array<Record<string, unknown>>;
      expect(choices, data).toHaveLength(1);
      // The assistant role and an empty refusal may come with the text; nothing else may.
      const { role, refusal, ...delta } = choices[0]?.delta as Record<string, unknown>;
      expect(delta, data).toEqual({ content: text });
      expect(role ?? 'assistant', data).toBe('assistant');
      expect(refusal ?? null, data).toBeNull();
      expect(choices[0]?.finish_reason ?? null, data).toBeNull();
      expect(parsed.usage ?? null, data).toBeNull();
      for (const key of Object.keys(parsed)) expect(['id', 'object', 'created', 'model', 'system_fingerprint', 'service_tier', 'provider', 'choices', 'usage', 'obfuscation'], data).toContain(key);
    }
    expect(read).toBeGreaterThan(600);
    expect(declined).toBeGreaterThan(3_000);
  });
});

describe('TextDeltaScanner.readFinish', () => {
  const finishWith = (choice: string, tail = '') => `${OPENING}"choices":[{"index":0,"delta":{},${choice}}]${tail}}`;

  it('reads the reason of the finish chunk in the shapes servers send, and declines the rest', () => {
    const scanner = new TextDeltaScanner();
    expect(scanner.readFinish(finishChunk)).toBeUndefined(); // nothing learned yet
    scanner.learn(roleChunk);
    expect(scanner.readFinish(finishChunk)).toBe('stop');
    expect(scanner.readFinish(finishWith('"finish_reason":"length"'))).toBe('length');
    expect(scanner.readFinish(finishWith('"finish_reason":"tool_calls","logprobs":null', ',"usage":null'))).toBe('tool_calls');
    expect(scanner.readFinish(finishWith('"logprobs":null,"finish_reason":"content_filter"', ',"usage":null,"obfuscation":"q"'))).toBe('content_filter');
    for (const declined of [
      finishWith('"logprobs":null,"finish_reason":null'),
      finishWith('"logprobs":null,"finish_reason":"st\\u006fp"'),
      finishWith('"logprobs":null,"finish_reason":"Stop"'),
      finishWith('"logprobs":null,"finish_reason":"stop"', ',"usage":{"prompt_tokens":1}'),
      finishWith('"logprobs":{"content":[]},"finish_reason":"stop"'),
      `${OPENING}"choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":"stop"}]}`,
      `${OPENING}"choices":[{"index":1,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`,
      `${OPENING}"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]`,
      textChunk('"Hello"'),
      usageChunk,
    ]) {
      expect(scanner.readFinish(declined), declined).toBeUndefined();
    }
  });

  it('answers only what JSON.parse would give, over generated finish chunks', () => {
    const rng = seededRandom(15);
    let read = 0;
    for (let index = 0; index < 4_000; index += 1) {
      const scanner = new TextDeltaScanner();
      scanner.learn(roleChunk);
      const reason = rng.pick(['"stop"', '"length"', '"tool_calls"', 'null', '"st\\"op"', '"STOP"', '"stop', '""']);
      const choice = rng.pick([`"logprobs":null,"finish_reason":${reason}`, `"finish_reason":${reason}`, `"finish_reason":${reason},"logprobs":null`, `"finish_reason":${reason},"x":1`]);
      const tail = rng.pick(['', ',"usage":null', ',"obfuscation":"a"', ',"usage":{"prompt_tokens":1}', ' ']);
      const data = `${OPENING}"choices":[{"index":0,"delta":{},${choice}}]${tail}}`;
      const found = scanner.readFinish(data);
      if (found === undefined) continue;
      read += 1;
      const parsed = JSON.parse(data) as { choices: Array<Record<string, unknown>>; usage?: unknown };
      expect(parsed.choices, data).toEqual([{ index: 0, delta: {}, finish_reason: found, ...('logprobs' in (parsed.choices[0] ?? {}) ? { logprobs: null } : {}) }]);
      expect(parsed.usage ?? null, data).toBeNull();
    }
    expect(read).toBeGreaterThan(500);
  });
});

describe('TextDeltaScanner.learnMetadata', () => {
  it("learns a first chunk's opening without parsing the chunk, and hands back its members", () => {
    const scanner = new TextDeltaScanner();
    expect(scanner.learnMetadata(roleChunk)).toEqual({ id: 'chatcmpl-D0q8', model: 'gpt-4o-mini-2024-07-18' });
    expect(scanner.read(textChunk('"Hello"'))).toBe('Hello');
  });

  it('learns nothing from an opening that is not metadata, or whose id or model is not text, or that is no JSON', () => {
    for (const opening of ['{"id":"a","usage":{"prompt_tokens":1},', '{"id":7,', '{"model":{"name":"m"},', '{"id":"a","meta":{', '{,', '{ ,', '{"id":"a",,', '{"__proto__":{"x":1},']) {
      const scanner = new TextDeltaScanner();
      const chunk = `${opening}"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`;
      expect(scanner.learnMetadata(chunk), opening).toBeUndefined();
      expect(scanner.read(chunk), opening).toBeUndefined();
    }
  });

  it('hands back the id and model JSON.parse gives, over generated openings', () => {
    const rng = seededRandom(17);
    let learned = 0;
    for (let index = 0; index < 4_000; index += 1) {
      const value = () => rng.pick(['"chatcmpl-1"', '"a\\"b"', '"é☕"', '""', '"\u0001"', '"raw\u0001"', '0', '-1.5e3', '01', '1.', 'null', 'nul', 'true', '{}', '"x" ']);
      const keys = ['id', 'object', 'created', 'model', 'system_fingerprint', 'service_tier', 'provider', 'usage', 'x'];
      const members = Array.from({ length: 1 + Math.floor(rng.next() * 5) }, () => `${rng.pick(['', ' '])}"${rng.pick(keys)}":${value()}`);
      const opening = `{${members.join(',')},`;
      const chunk = `${opening}"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`;
      const scanner = new TextDeltaScanner();
      const found = scanner.learnMetadata(chunk);
      let parsed: Record<string, unknown> | undefined;
      try {
        parsed = JSON.parse(chunk) as Record<string, unknown>;
      } catch {
        parsed = undefined;
      }
      if (found === undefined) continue;
      learned += 1;
      expect(parsed, chunk).toBeDefined();
      expect(found, chunk).toEqual({ id: parsed?.id, model: parsed?.model });
      expect(scanner.read(chunk), chunk).toBe('x');
    }
    expect(learned).toBeGreaterThan(200);
  });
});

describe('TextDeltaScanner.readUsage', () => {
  it('reads the usage of the usage-only chunk with the learned opening, and declines the rest', () => {
    const scanner = new TextDeltaScanner();
    expect(scanner.readUsage(usageChunk)).toBeUndefined(); // nothing learned yet
    scanner.learn(roleChunk);
    expect(scanner.readUsage(usageChunk)).toEqual({ prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 });
    const detailed = '{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}';
    expect(scanner.readUsage(`${OPENING}"choices":[],"usage":${detailed},"obfuscation":"Zq1"}`)).toEqual(JSON.parse(detailed));
    // DeepSeek's cache hits, vLLM's null details and fields nothing reads, in the flat form read by hand.
    expect(
      scanner.readUsage(
        `${OPENING}"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7,"prompt_cache_hit_tokens":4,"prompt_tokens_details":null,"queue_time":0.01,"x":"y"}}`,
      ),
    ).toEqual({
      prompt_tokens: 5,
      completion_tokens: 2,
      total_tokens: 7,
      prompt_cache_hit_tokens: 4,
    });
    for (const declined of [
      `${OPENING}"choices":[],"usage":null}`,
      `${OPENING}"choices":[],"usage":{"prompt_tokens":"9"}}`,
      `${OPENING}"choices":[],"usage":{"prompt_tokens_details":3}}`,
      `${OPENING}"choices":[],"usage":{"prompt_tokens":09}}`,
      `${OPENING}"choices":[],"usage":{"prompt_tokens":1,}}`,
      `${OPENING}"choices":[],"usage":{"prompt_tokens":9},"x_groq":{"id":"q"}}`,
      `${OPENING}"choices":[],"usage":{"prompt_tokens":9}`,
      `${OPENING}"choices":[],"usage":{"prompt_tokens":9}} `,
      `${OPENING}"choices":[{"index":0,"delta":{}}],"usage":{"prompt_tokens":9}}`,
      usageChunk.replace('"id":"chatcmpl-D0q8"', '"id":"chatcmpl-other"'),
      finishChunk,
      textChunk('"Hello"'),
    ]) {
      expect(scanner.readUsage(declined), declined).toBeUndefined();
    }
  });

  it('answers only what JSON.parse would give, over generated usage chunks', () => {
    const rng = seededRandom(16);
    let read = 0;
    for (let index = 0; index < 4_000; index += 1) {
      const scanner = new TextDeltaScanner();
      scanner.learn(roleChunk);
      const number = () => (rng.next() < 0.9 ? rng.pick(['0', '12', '-1', '1.5', 'null', '1e3']) : rng.pick(['"3"', '01', '1.', '-', 'true', '"a\\"b"']));
      const fields = [`"prompt_tokens":${number()}`, `"completion_tokens":${number()}`, `"total_tokens":${number()}`];
      if (rng.next() < 0.3) fields.push(`"prompt_tokens_details":${rng.pick(['{"cached_tokens":4}', 'null', '{"cached_tokens":"4"}', '[]'])}`);
      if (rng.next() < 0.3)
        fields.push(
          rng.pick([
            '"extra":{"a":[1,{"b":"}"}]}',
            '"queue_time":0.1',
            '"completion_tokens_details":{"reasoning_tokens":2}',
            '"prompt_cache_hit_tokens":3',
            '"completion_tokens_details":null',
            '"note":"x"',
            '"prompt_tokens" :1',
          ]),
        );
      const usage = rng.next() < 0.9 ? `{${fields.filter(() => rng.next() < 0.9).join(',')}}` : rng.pick(['null', '[]', '{"a":1', '"usage"']);
      const tail = rng.pick(['}', ',"obfuscation":"a+/="}', ',"obfuscation":"a\\"b"}', ',"x":1}', '} ', '']);
      const data = `${OPENING}"choices":[],"usage":${usage}${tail}`;
      const found = scanner.readUsage(data);
      if (found === undefined) continue;
      read += 1;
      const parsed = JSON.parse(data) as Record<string, unknown>;
      expect(parsed.choices, data).toEqual([]);
      expect(isPlainUsage(parsed.usage) && parsed.usage !== null, data).toBe(true);
      expect(mapUsage(found), data).toEqual(mapUsage(parsed.usage as OpenAIUsage));
      for (const key of Object.keys(parsed)) expect(['id', 'object', 'created', 'model', 'system_fingerprint', 'service_tier', 'choices', 'usage', 'obfuscation'], data).toContain(key);
    }
    expect(read).toBeGreaterThan(300);
  });
});

describe('mapChatStream with scanned text chunks', () => {
  it('gives the same events as parsing every chunk', async () => {
    const stream = [roleChunk, textChunk('"Hel"'), textChunk(JSON.stringify('lo "you"\n')), textChunk('""'), finishChunk, usageChunk, '[DONE]'].map((data) => `data: ${data}\n\n`).join('');
    const events: ModelStreamEvent[] = [];
    for await (const event of mapChatStream(readSseBatches(chunked(stream)))) events.push(event);
    expect(events).toEqual([
      { type: 'response-metadata', id: 'chatcmpl-D0q8', model: 'gpt-4o-mini-2024-07-18' },
      { type: 'text-delta', delta: 'Hel' },
      { type: 'text-delta', delta: 'lo "you"\n' },
      { type: 'usage', usage: { inputTokens: 9, outputTokens: 3 } },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } },
    ]);
  });
});

async function* chunked(text: string): AsyncIterable<Uint8Array> {
  yield new TextEncoder().encode(text);
}

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** An opening: metadata members mostly, sometimes one the scanner must refuse, sometimes none. */
function generatedOpening(rng: SeededRandom): string {
  const members = [
    `"id":${JSON.stringify(rng.pick(['chatcmpl-1', 'gen-"q"', 'a\\b', '']))}`,
    '"object":"chat.completion.chunk"',
    `"created":${rng.pick([1, 1769092764])}`,
    `"model":${JSON.stringify(rng.pick(['gpt-4o', 'llama "3"', 'm']))}`,
  ];
  if (rng.next() < 0.4) members.push(`"system_fingerprint":${rng.pick(['"fp_1"', 'null'])}`);
  if (rng.next() < 0.2) members.push(rng.pick(['"usage":null', '"usage":{"prompt_tokens":3}', '"error":null', '"x_groq":{}', '"extra":{"choices":[1]}', '"provider":"p"']));
  if (rng.next() < 0.05) return '{';
  return `{${members.filter(() => rng.next() < 0.9).join(',')},`;
}

/** The rest of a chunk after its opening: plain text deltas in the known shapes, and near misses. */
function generatedRest(rng: SeededRandom): string {
  const pieces = ['Hello', ' ', '"', '\\', '\n', 'é', '☕', '😀', '\u0001', '</script>', '\\"', '\u2028', '{"a":1}'];
  const text = Array.from({ length: Math.floor(rng.next() * 5) }, () => rng.pick(pieces)).join('');
  const token = rng.next() < 0.92 ? JSON.stringify(text) : rng.pick(['"bad \\x"', '"raw \u0001"', '"open', 'null', '5']);
  const delta =
    rng.next() < 0.75
      ? `{"content":${token}}`
      : rng.pick([
          `{"role":"assistant","content":${token}}`,
          `{"role":"assistant","content":${token},"refusal":null}`,
          `{"content":${token},"refusal":null}`,
          `{"role":"user","content":${token}}`,
          `{"role":"assistant","content":${token},"refusal":"no"}`,
          `{"content":${token},"role":"assistant"}`,
          `{"reasoning":${token}}`,
          '{}',
          `{"content":${token},"tool_calls":null}`,
        ]);
  const choiceTail = rng.pick([
    ',"logprobs":null,"finish_reason":null}',
    ',"finish_reason":null}',
    ',"finish_reason":null,"logprobs":null}',
    ',"finish_reason":"stop"}',
    '}',
    ',"logprobs":{"content":[]},"finish_reason":null}',
  ]);
  const index = rng.next() < 0.95 ? 0 : 1;
  const choices = rng.next() < 0.95 ? `[{"index":${index},"delta":${delta}${choiceTail}]` : `[{"index":0,"delta":${delta}${choiceTail},{"index":1,"delta":{}}]`;
  const end = rng.pick([
    '}',
    ',"usage":null}',
    ',"obfuscation":"ZGF"}',
    ',"usage":null,"obfuscation":"a+/="}',
    ',"usage":{"total_tokens":1}}',
    ',"obfuscation":"a\\"b"}',
    '} ',
    ',"error":{"message":"x"}}',
  ]);
  return `"choices":${choices}${end}`;
}
