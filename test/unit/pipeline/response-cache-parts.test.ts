import { describe, expect, it } from 'vitest';
import { decodeSettlement, encodeSettlement, type JournaledSettlement } from '../../../src/billing/settlement-journal-line.ts';
import type { CatalogModel } from '../../../src/catalog/types.ts';
import type { ModelRequest, ModelResponse, ModelStreamEvent } from '../../../src/core/model-types.ts';
import { attachNestedFields } from '../../../src/providers/nested-fields.ts';
import { answerEvents, answerResponse, answerUsage, type CachedAnswer, isStorableAnswer, parseCachedAnswer } from '../../../src/pipeline/cached-answer.ts';
import { responseCacheKey, stableJson } from '../../../src/pipeline/response-cache-key.ts';
import { usageRecordFixture } from '../../support/usage-record-fixture.ts';

const model = (id: string) => ({ id }) as CatalogModel;
const ask = (text: string, extra: Partial<Omit<ModelRequest, 'model'>> = {}): Omit<ModelRequest, 'model'> => ({ messages: [{ role: 'user', content: [{ type: 'text', text }] }], ...extra });

describe('the response cache key', () => {
  it('writes objects with sorted keys and without undefined members', () => {
    expect(stableJson({ b: 1, a: { d: [1, { z: 1, y: undefined }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"z":1}]},"b":1}');
  });

  it('is the same for requests that differ only in key order, user or metadata, and differs for anything that changes the answer', () => {
    const base = responseCacheKey([model('openai/gpt-4o')], ask('hi', { temperature: 0.5, providerOptions: { openai: { metadata: { a: '1' }, logit_bias: { 1: 2 } } } }));
    expect(responseCacheKey([model('openai/gpt-4o')], { providerOptions: { openai: { logit_bias: { 1: 2 }, metadata: { a: '2' } } }, user: 'bob', temperature: 0.5, ...ask('hi') })).toBe(base);
    expect(responseCacheKey([model('openai/gpt-4o')], ask('hi', { temperature: 0.5, providerOptions: { openai: { logit_bias: { 1: 3 } } } }))).not.toBe(base);
    expect(responseCacheKey([model('openai/gpt-4o')], ask('hi', { temperature: 0.6, providerOptions: { openai: { logit_bias: { 1: 2 } } } }))).not.toBe(base);
    expect(responseCacheKey([model('openai/gpt-4o-mini')], ask('hi', { temperature: 0.5, providerOptions: { openai: { logit_bias: { 1: 2 } } } }))).not.toBe(base);
    // A fallback model is part of the request: it may serve it.
    expect(responseCacheKey([model('openai/gpt-4o'), model('openai/gpt-4o-mini')], ask('hi', { temperature: 0.5, providerOptions: { openai: { logit_bias: { 1: 2 } } } }))).not.toBe(base);
  });

  it('counts the nested unknown fields a front-end set aside (symbol-keyed, invisible to JSON)', () => {
    const options = (value: unknown) => {
      const openai: Record<string, unknown> = {};
      attachNestedFields(openai, [{ name: 'messages.0.content.0.x_hint', path: ['messages', 0, 'content', 0, 'x_hint'], value, match: {}, applied: false }]);
      return { providerOptions: { openai } };
    };
    expect(responseCacheKey([model('m')], ask('hi', options(1)))).not.toBe(responseCacheKey([model('m')], ask('hi', options(2))));
    expect(responseCacheKey([model('m')], ask('hi', options(1)))).toBe(responseCacheKey([model('m')], ask('hi', options(1))));
  });
});

const response: ModelResponse = {
  id: 'msg_1',
  model: 'claude',
  content: [
    { type: 'reasoning', text: 'thinking', signature: 'sig' },
    { type: 'text', text: 'Looking it up.' },
    { type: 'tool-call', id: 'call_1', name: 'lookup', arguments: '{"q":"a"}' },
    { type: 'tool-call', id: 'call_2', name: 'lookup', arguments: '{"q":"b"}' },
  ],
  usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 4, cacheWriteTokens: 2 },
  finishReason: { unified: 'tool-calls', raw: 'tool_use' },
};

describe('cached answers', () => {
  it('replay a response as the events of a stream, and fold those events back into the same response', () => {
    const events = answerEvents({ kind: 'response', response });
    expect(events.map((event) => event.type)).toEqual([
      'response-metadata',
      'reasoning-delta',
      'reasoning-signature',
      'text-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-start',
      'tool-call-delta',
      'usage',
      'finish',
    ]);
    expect(answerResponse({ kind: 'events', events })).toEqual(response);
    expect(answerUsage({ kind: 'events', events })).toEqual(response.usage);
  });

  it('join deltas split as a provider streams them', () => {
    const events: ModelStreamEvent[] = [
      { type: 'text-delta', delta: 'Hel' },
      { type: 'text-delta', delta: 'lo' },
      { type: 'tool-call-start', index: 0, id: 'c', name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"a"' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: ':1}' },
      { type: 'usage', usage: { inputTokens: 1, outputTokens: 2 } },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
    ];
    expect(answerResponse({ kind: 'events', events }).content).toEqual([
      { type: 'text', text: 'Hello' },
      { type: 'tool-call', id: 'c', name: 'f', arguments: '{"a":1}' },
    ]);
  });

  it('keep only answers that ended on their own with usage, and read back only what they wrote', () => {
    const finished: ModelStreamEvent[] = [
      { type: 'text-delta', delta: 'x' },
      { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' } },
    ];
    expect(isStorableAnswer({ kind: 'events', events: finished })).toBe(true);
    expect(isStorableAnswer({ kind: 'events', events: finished.slice(0, 2) })).toBe(false);
    expect(isStorableAnswer({ kind: 'events', events: [finished[0] as ModelStreamEvent, finished[2] as ModelStreamEvent] })).toBe(false);
    expect(isStorableAnswer({ kind: 'response', response: { ...response, finishReason: { unified: 'error', raw: undefined } } })).toBe(false);

    const answer: CachedAnswer = { kind: 'response', response };
    expect(parseCachedAnswer(JSON.stringify(answer))).toEqual(answer);
    expect(parseCachedAnswer('{"kind":"response"}')).toBeUndefined();
    expect(parseCachedAnswer('not json')).toBeUndefined();
  });
});

describe('journal lines with the cache fields', () => {
  const owner = { accountId: 'a', keyId: null };
  const journaled = (usage: JournaledSettlement['usage']): JournaledSettlement => ({ usage, keyId: null, accountId: 'a', spendMicros: 0, keyLeaseMicros: 0, accountLeaseMicros: 0 });

  it('carry cache writes and a hit after the time, and read back lines without them', () => {
    const usage = usageRecordFixture(owner, { createdAt: new Date(1_000), cacheWriteTokens: 300, cacheHit: true });
    const line = encodeSettlement(journaled(usage));
    expect(line.trimEnd().endsWith(',1000,300,true]')).toBe(true);
    expect(decodeSettlement(line.trimEnd())?.usage).toMatchObject({ cacheWriteTokens: 300, cacheHit: true, createdAt: new Date(1_000) });

    const plain = encodeSettlement(journaled(usageRecordFixture(owner, { createdAt: new Date(1_000), cacheWriteTokens: 0, cacheHit: false })));
    expect(plain.trimEnd().endsWith(',1000]')).toBe(true);
    expect(decodeSettlement(plain.trimEnd())?.usage?.cacheHit).toBeUndefined();
  });
});
