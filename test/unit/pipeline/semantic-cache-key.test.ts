import { describe, expect, it } from 'vitest';
import type { CatalogModel } from '../../../src/catalog/types.ts';
import type { ModelMessage, ModelRequest } from '../../../src/core/model-types.ts';
import { MAX_SEMANTIC_TEXT_BYTES, semanticCacheKey } from '../../../src/pipeline/semantic-cache-key.ts';

const model = (id: string) => ({ id }) as CatalogModel;
const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const request = (messages: ModelMessage[], extra: Partial<Omit<ModelRequest, 'model'>> = {}): Omit<ModelRequest, 'model'> => ({ messages, ...extra });
const key = (messages: ModelMessage[], extra: Partial<Omit<ModelRequest, 'model'>> = {}, models = ['openai/gpt-4o']) =>
  semanticCacheKey(
    models.map((id) => model(id)),
    request(messages, extra),
  );

describe('the semantic cache key', () => {
  it('embeds the user and assistant text and hashes the rest as the shape', () => {
    const conversation: ModelMessage[] = [{ role: 'system', content: 'Be brief.' }, user('Hi there'), { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] }, user('What is a cache?')];
    const base = key(conversation, { temperature: 0.2, user: 'alice' });
    expect(base?.text).toBe('Hi there\n\nHello.\n\nWhat is a cache?');
    // Other words, the same shape: that is what similarity decides.
    const other = key([conversation[0] as ModelMessage, user('Hey'), { role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] }, user('Define a cache')], { temperature: 0.2, user: 'bob' });
    expect(other?.shapeHash).toBe(base?.shapeHash);
    expect(other?.text).not.toBe(base?.text);
  });

  it('changes the shape with the system prompt, the roles of the turns, the models, tools or sampling', () => {
    const base = key([user('q')])?.shapeHash;
    expect(key([{ role: 'system', content: 'Answer in French.' }, user('q')])?.shapeHash).not.toBe(base);
    expect(key([user('a'), user('q')])?.shapeHash).not.toBe(base);
    expect(key([user('q')], {}, ['openai/gpt-4o-mini'])?.shapeHash).not.toBe(base);
    expect(key([user('q')], {}, ['openai/gpt-4o', 'openai/gpt-4o-mini'])?.shapeHash).not.toBe(base);
    expect(key([user('q')], { tools: [{ name: 'lookup', parameters: { type: 'object' } }] })?.shapeHash).not.toBe(base);
    expect(key([user('q')], { temperature: 0 })?.shapeHash).not.toBe(base);
    expect(key([user('q')], { responseFormat: { type: 'json_object' } })?.shapeHash).not.toBe(base);
    expect(key([user('q')], { providerOptions: { openai: { logit_bias: { 1: 2 } } } })?.shapeHash).not.toBe(base);
    expect(key([user('q')], { providerOptions: { openai: { metadata: { run: '1' } } } })?.shapeHash).toBe(key([user('q')], { providerOptions: { openai: { metadata: { run: '2' } } } })?.shapeHash);
  });

  it('leaves conversations whose meaning is not all in their text, or too long to embed, to exact matching', () => {
    expect(
      key([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image', url: 'https://example.com/a.png' },
          ],
        },
      ]),
    ).toBeUndefined();
    expect(
      key([user('weather?'), { role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'weather', arguments: '{}' }] }, { role: 'tool', toolCallId: 'c1', content: 'sunny' }]),
    ).toBeUndefined();
    expect(key([user('   ')])).toBeUndefined();
    expect(key([user('x'.repeat(MAX_SEMANTIC_TEXT_BYTES + 1))])).toBeUndefined();
    expect(key([user('x'.repeat(MAX_SEMANTIC_TEXT_BYTES))])).toBeDefined();
  });
});
