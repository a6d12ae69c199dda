import { describe, expect, it } from 'vitest';
import { OpenAIChatChunkSchema, OpenAIChatResponseSchema } from '../../../../src/providers/openai/openai-wire-schemas.ts';
import { isPlainChatResponse } from '../../../../src/providers/openai/plain-chat-response.ts';
import { isPlainDeltaChunk } from '../../../../src/providers/openai/plain-delta-chunk.ts';
import { addFields, type FieldValues, holdToSchema, type SeededRandom, seededRandom } from '../../../support/generated-requests.ts';

// Valid values and near misses for what the fast path looks at, and what it leaves to the schema.
const DETAILS = (field: string) => ({ valid: [{ [field]: 3 }, { [field]: null }, {}, { [field]: 1, other: 'x' }, null], invalid: [{ [field]: '3' }, [], 5] });
const USAGE_FIELDS: FieldValues = {
  prompt_tokens: { valid: [12, 0, null], invalid: ['12', true] },
  completion_tokens: { valid: [7, null], invalid: ['7'] },
  total_tokens: { valid: [19, null], invalid: [{}] },
  prompt_cache_hit_tokens: { valid: [4, null], invalid: ['4'] },
  prompt_tokens_details: DETAILS('cached_tokens'),
  completion_tokens_details: DETAILS('reasoning_tokens'),
  vendor_extra: { valid: [1, 'x'], invalid: [] },
};
const DELTA_FIELDS: FieldValues = {
  role: { valid: ['assistant'], invalid: [] },
  content: { valid: ['Hello', '', null], invalid: [5, ['a']] },
  refusal: { valid: ['no', null], invalid: [false] },
  reasoning_content: { valid: ['think', null], invalid: [1] },
  reasoning: { valid: ['think'], invalid: [{}] },
  tool_calls: { valid: [[{ index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '' } }], null], invalid: [[{ index: 'x' }]] },
};

function usage(rng: SeededRandom): unknown {
  if (rng.next() < 0.05) return rng.pick(['usage', [], 3]);
  const built: Record<string, unknown> = {};
  addFields(rng, built, USAGE_FIELDS, 0.5);
  return built;
}

function choice(rng: SeededRandom): unknown {
  if (rng.next() < 0.03) return rng.pick(['choice', null]);
  const built: Record<string, unknown> = { index: 0 };
  if (rng.next() < 0.9) {
    const delta: Record<string, unknown> = {};
    addFields(rng, delta, DELTA_FIELDS, 0.3);
    built.delta = rng.next() < 0.03 ? rng.pick(['d', []]) : delta;
  }
  if (rng.next() < 0.3) built.finish_reason = rng.pick(['stop', 'length', null, 5]);
  if (rng.next() < 0.2) built.logprobs = null;
  return built;
}

const MESSAGE_FIELDS: FieldValues = {
  ...DELTA_FIELDS,
  role: { valid: ['assistant', null], invalid: [3] },
  tool_calls: { valid: [[{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }], null, []], invalid: [[{ id: 'c' }]] },
};

function answer(rng: SeededRandom): unknown {
  const built: Record<string, unknown> = { object: 'chat.completion', created: 1 };
  if (rng.next() < 0.95) built.id = rng.next() < 0.95 ? 'chatcmpl-1' : rng.pick([null, 3]);
  if (rng.next() < 0.95) built.model = rng.next() < 0.95 ? 'gpt-x' : rng.pick([null, 3]);
  if (rng.next() < 0.97) {
    built.choices =
      rng.next() < 0.03
        ? rng.pick(['c', null, {}])
        : Array.from({ length: Math.floor(rng.next() * 2.2) }, () => {
            if (rng.next() < 0.03) return rng.pick(['choice', null]);
            const message: Record<string, unknown> = {};
            addFields(rng, message, MESSAGE_FIELDS, 0.4);
            const choice: Record<string, unknown> = { index: 0, message: rng.next() < 0.03 ? rng.pick([null, 'm']) : message, logprobs: null };
            if (rng.next() < 0.9) choice.finish_reason = rng.pick(['stop', 'length', 'tool_calls', null, 5]);
            if (rng.next() < 0.03) delete choice.message;
            return choice;
          });
  }
  if (rng.next() < 0.9) built.usage = rng.next() < 0.05 ? null : usage(rng);
  if (rng.next() < 0.1) built.system_fingerprint = 'fp_1';
  return built;
}

function chunk(rng: SeededRandom): unknown {
  const built: Record<string, unknown> = { object: 'chat.completion.chunk', created: 1 };
  if (rng.next() < 0.95) built.id = rng.next() < 0.95 ? 'chatcmpl-1' : rng.pick([null, 3]);
  if (rng.next() < 0.95) built.model = rng.next() < 0.95 ? 'gpt-x' : rng.pick([null, 3]);
  if (rng.next() < 0.9) built.choices = rng.next() < 0.03 ? rng.pick(['c', null]) : Array.from({ length: Math.floor(rng.next() * 2.2) }, () => choice(rng));
  if (rng.next() < 0.3) built.usage = rng.next() < 0.1 ? null : usage(rng);
  if (rng.next() < 0.03) built.x_groq = { usage: { prompt_tokens: 1 } };
  if (rng.next() < 0.03) built.error = { message: 'overloaded' };
  if (rng.next() < 0.1) built.system_fingerprint = 'fp_1';
  return built;
}

describe('isPlainDeltaChunk', () => {
  it('accepts only what the schema accepts, unchanged (5,000 generated chunks)', () => {
    const rng = seededRandom(20261127);
    const { plain, schemaOnly } = holdToSchema({ count: 5_000, generate: () => chunk(rng), fast: (json) => (isPlainDeltaChunk(json) ? json : undefined), schema: OpenAIChatChunkSchema });
    // Both paths were really exercised.
    expect(plain).toBeGreaterThan(500);
    expect(schemaOnly).toBeGreaterThan(100);
  });

  it("takes OpenAI's text deltas, finish chunk and closing usage chunk", () => {
    const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', system_fingerprint: 'fp_1' };
    expect(isPlainDeltaChunk({ ...head, choices: [{ index: 0, delta: { content: 'Hi' }, logprobs: null, finish_reason: null }] })).toBe(true);
    expect(isPlainDeltaChunk({ ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] })).toBe(true);
    const usage = {
      prompt_tokens: 12,
      completion_tokens: 7,
      total_tokens: 19,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    };
    expect(isPlainDeltaChunk({ ...head, choices: [], usage })).toBe(true);
  });

  it('leaves tool calls, Groq usage and in-stream errors to the schema', () => {
    expect(isPlainDeltaChunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0 }] } }] })).toBe(false);
    expect(isPlainDeltaChunk({ choices: [], x_groq: { usage: { prompt_tokens: 1 } } })).toBe(false);
    expect(isPlainDeltaChunk({ error: { message: 'overloaded' } })).toBe(false);
  });
});

describe('isPlainChatResponse', () => {
  it('accepts only what the schema accepts, unchanged (5,000 generated answers)', () => {
    const rng = seededRandom(20261128);
    const { plain, schemaOnly } = holdToSchema({ count: 5_000, generate: () => answer(rng), fast: (json) => (isPlainChatResponse(json) ? json : undefined), schema: OpenAIChatResponseSchema });
    expect(plain).toBeGreaterThan(500);
    // Answers with tool calls (valid ones) are what the schema alone takes here.
    expect(schemaOnly).toBeGreaterThan(30);
  });

  it("takes OpenAI's everyday answer and leaves tool calls to the schema", () => {
    const message = { role: 'assistant', content: 'Hello.', refusal: null, annotations: [] };
    const usage = { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } };
    const body = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message, logprobs: null, finish_reason: 'stop' }],
      usage,
      service_tier: 'default',
    };
    expect(isPlainChatResponse(body)).toBe(true);
    const withTools = { ...body, choices: [{ index: 0, message: { ...message, tool_calls: [] }, finish_reason: 'tool_calls' }] };
    expect(isPlainChatResponse(withTools)).toBe(false);
  });
});
