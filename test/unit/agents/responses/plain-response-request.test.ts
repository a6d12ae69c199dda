import { describe, expect, it } from 'vitest';
import { plainResponseRequest } from '../../../../src/agents/responses/plain-response-request.ts';
import { CreateResponseSchema } from '../../../../src/agents/responses/response-request-schema.ts';
import { addFields, type FieldValues, holdToSchema, type SeededRandom, seededRandom } from '../../../support/generated-requests.ts';

// Valid values and near misses for the fields the fast path takes, and fields it leaves to the schema.
const VALUES: FieldValues = {
  instructions: { valid: ['Be brief.', '', null], invalid: [3, ['x']] },
  stream: { valid: [true, false, null], invalid: ['yes', 1] },
  store: { valid: [true, false, null], invalid: ['no'] },
  background: { valid: [true, false, null], invalid: [0] },
  generate: { valid: [true, false, null], invalid: ['false'] },
  previous_response_id: { valid: ['resp_123', null], invalid: ['', 5] },
  temperature: { valid: [0, 1.2, 2, null], invalid: [2.5, -1, '1'] },
  max_output_tokens: { valid: [16, 1_000, null], invalid: [15, 0, 100.5, '64', 2 ** 60] },
  metadata: { valid: [{ a: 'b' }], invalid: [{ a: 1 }] },
  tools: { valid: [[]], invalid: [[{ type: 'nope' }]] },
  top_p: { valid: [1], invalid: [0.5] },
  unknown_field: { valid: [], invalid: [true] },
};

function request(rng: SeededRandom): unknown {
  const built: Record<string, unknown> = {};
  if (rng.next() < 0.97) built.model = rng.next() < 0.9 ? 'echo' : rng.pick(['', 7, null]);
  if (rng.next() < 0.97) {
    built.input = rng.next() < 0.85 ? rng.pick(['How many days do I have?', 'x', '', 'ünïcode ✓']) : rng.pick([[{ type: 'message', role: 'user', content: 'hi' }], [], 3, null]);
  }
  addFields(rng, built, VALUES, 0.12);
  return built;
}

describe('plainResponseRequest', () => {
  it('gives exactly what the schema gives, and only where the schema accepts (5,000 generated requests)', () => {
    const rng = seededRandom(20261126);
    const { plain, schemaOnly } = holdToSchema({ count: 5_000, generate: () => request(rng), fast: plainResponseRequest, schema: CreateResponseSchema });
    expect(plain).toBeGreaterThan(500);
    expect(schemaOnly).toBeGreaterThan(100);
  });

  it("takes the official clients' everyday request and leaves items, tools and metadata to the schema", () => {
    expect(plainResponseRequest({ model: 'support', input: 'Hi', store: false })).toEqual({ model: 'support', input: [{ type: 'message', role: 'user', content: 'Hi' }], store: false });
    expect(plainResponseRequest({ model: 'support', input: [{ type: 'message', role: 'user', content: 'Hi' }] })).toBeUndefined();
    expect(plainResponseRequest({ model: 'support', input: 'Hi', tools: [] })).toBeUndefined();
    expect(plainResponseRequest({ model: 'support', input: 'Hi', metadata: { a: 'b' } })).toBeUndefined();
  });
});
