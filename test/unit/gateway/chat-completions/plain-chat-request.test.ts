import { describe, expect, it } from 'vitest';
import { ChatRequestSchema } from '../../../../src/gateway/chat-completions/chat-request-schema.ts';
import { isPlainChatRequest } from '../../../../src/gateway/chat-completions/plain-chat-request.ts';
import { addFields, type FieldValues, holdToSchema, type SeededRandom, seededRandom } from '../../../support/generated-requests.ts';

// Valid values and near misses for every field the fast path looks at, and fields it leaves to the schema.
const VALUES: FieldValues = {
  max_tokens: { valid: [1, 64, null], invalid: [0, -3, 1.5, '64', 2 ** 60] },
  max_completion_tokens: { valid: [16, null], invalid: [0, true] },
  temperature: { valid: [0, 1, 2, null], invalid: [2.01, -0.1, '1'] },
  top_p: { valid: [0, 0.5, 1, null], invalid: [1.2, -1] },
  stream: { valid: [true, false, null], invalid: ['yes', 1] },
  stream_options: { valid: [{ include_usage: true }, { include_usage: false }, {}, null], invalid: [{ include_usage: 'yes' }, { other: true }, [], 'x'] },
  user: { valid: ['someone', ''], invalid: [5, null] },
  tools: { valid: [[{ type: 'function', function: { name: 'lookup' } }], []], invalid: [[{ type: 'function' }]] },
  seed: { valid: [1, null], invalid: [1.5] },
  service_tier: { valid: ['auto'], invalid: ['priority'] },
  unknown_field: { valid: [], invalid: [1] },
};
const ROLES = { valid: ['system', 'developer', 'user', 'assistant'], invalid: ['tool', 'robot', 5] };
const CONTENTS = { valid: ['hello', ''], invalid: [null, [{ type: 'text', text: 'hi' }], [], 3] };

function message(rng: SeededRandom): unknown {
  if (rng.next() < 0.03) return rng.pick(['not an object', null, []]);
  const choose = (values: { valid: readonly unknown[]; invalid: readonly unknown[] }) => (rng.next() < 0.9 ? rng.pick(values.valid) : rng.pick(values.invalid));
  const built: Record<string, unknown> = { role: choose(ROLES), content: choose(CONTENTS) };
  if (rng.next() < 0.2) built.name = rng.pick(['alice', 3]);
  if (rng.next() < 0.03) built.tool_calls = [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }];
  if (rng.next() < 0.03) built.extra = true;
  if (rng.next() < 0.03) delete built.content;
  return built;
}

function request(rng: SeededRandom): unknown {
  const built: Record<string, unknown> = {};
  if (rng.next() < 0.97) built.model = rng.next() < 0.9 ? 'openai/gpt-x' : rng.pick(['', 7, null]);
  if (rng.next() < 0.98) built.messages = rng.next() < 0.03 ? rng.pick([[], 'hi', null]) : Array.from({ length: 1 + Math.floor(rng.next() * 3) }, () => message(rng));
  addFields(rng, built, VALUES, 0.1);
  return built;
}

describe('isPlainChatRequest', () => {
  it('accepts only what the schema accepts, unchanged (5,000 generated requests)', () => {
    const rng = seededRandom(20261126);
    const { plain, schemaOnly } = holdToSchema({ count: 5_000, generate: () => request(rng), fast: (body) => (isPlainChatRequest(body) ? body : undefined), schema: ChatRequestSchema });
    // Both paths were really exercised.
    expect(plain).toBeGreaterThan(200);
    expect(schemaOnly).toBeGreaterThan(100);
  });

  it("takes the official clients' everyday requests", () => {
    expect(
      isPlainChatRequest({
        model: 'openai/gpt-x',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
      }),
    ).toBe(true);
    expect(isPlainChatRequest({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 64, stream: true, stream_options: { include_usage: true } })).toBe(true);
  });

  it('leaves tools, content parts, tool messages and fallbacks to the schema', () => {
    const base = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };
    expect(isPlainChatRequest({ ...base, tools: [] })).toBe(false);
    expect(isPlainChatRequest({ ...base, models: ['a'] })).toBe(false);
    expect(isPlainChatRequest({ ...base, messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] })).toBe(false);
    expect(isPlainChatRequest({ ...base, messages: [{ role: 'tool', tool_call_id: 'c', content: 'x' }] })).toBe(false);
  });
});
