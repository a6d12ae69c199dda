import { describe, expect, it } from 'vitest';
import { applyNestedFields, identifyingFields, type NestedField } from '../../../src/providers/nested-fields.ts';

const field = (path: Array<string | number>, value: unknown, match: Record<string, string>): NestedField => ({ name: path.join('.'), path, value, match, applied: false });

describe('applyNestedFields', () => {
  it('puts a field back on the object with the same identifying fields, at the same path', () => {
    const body = { tools: [{ name: 'noop', input_schema: {} }] };
    const placed = field(['tools', 0, 'eager_input_streaming'], true, { name: 'noop' });
    applyNestedFields(body, [placed]);
    expect(body.tools[0]).toEqual({ name: 'noop', input_schema: {}, eager_input_streaming: true });
    expect(placed.applied).toBe(true);
  });

  it('leaves a body whose shape moved alone: another object, no object, or a field already there', () => {
    const body = { messages: [{ role: 'assistant', content: 'merged' }], tools: [{ name: 'other' }], system: 'text', kept: { x: 1 } };
    const fields = [
      field(['messages', 0, 'tag'], 'u', { role: 'user' }),
      field(['tools', 0, 'flag'], true, { name: 'noop' }),
      field(['system', 0, 'hint'], 1, {}),
      field(['kept', 'x'], 2, {}),
      field(['missing', 0, 'y'], 3, {}),
    ];
    const before = structuredClone(body);
    applyNestedFields(body, fields);
    expect(body).toEqual(before);
    expect(fields.map((entry) => entry.applied)).toEqual([false, false, false, false, false]);
  });

  it('keeps a field named __proto__ a field', () => {
    const body = { tools: [{ name: 't' }] };
    applyNestedFields(body, [field(['tools', 0, '__proto__'], { polluted: true }, { name: 't' })]);
    expect(Object.keys(body.tools[0] ?? {})).toEqual(['name', '__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('identifies an object by its known text fields only', () => {
    expect(identifyingFields({ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' }, index: 1 })).toEqual({ type: 'text', text: 'hi' });
  });
});
