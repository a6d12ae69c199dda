import { describe, expect, it } from 'vitest';
import { storableJsonReplacer } from '../../../src/core/storable-text.ts';
import { findUnstorableText, unstorableTextError } from '../../../src/http/unstorable-text.ts';

describe('findUnstorableText', () => {
  it('names the path of the first NUL in a value, and allows it where NUL is forwarded', () => {
    const body = { model: 'm', input: [{ role: 'user', content: [{ type: 'input_text', text: 'a\u0000b' }] }] };
    expect(findUnstorableText(body, { allowNul: false })).toEqual({ path: ['input', '0', 'content', '0', 'text'], reason: 'nul' });
    expect(findUnstorableText(body, { allowNul: true })).toBeUndefined();
  });

  it('refuses a lone surrogate whether or not NUL is allowed, in values and in keys', () => {
    expect(findUnstorableText({ messages: ['ok', 'bad \ud800'] }, { allowNul: true })).toEqual({ path: ['messages', '1'], reason: 'lone_surrogate' });
    expect(findUnstorableText({ metadata: { 'k\udc00': 'v' } }, { allowNul: true })?.reason).toBe('lone_surrogate');
    expect(findUnstorableText({ metadata: { 'k\u0000': 'v' } }, { allowNul: false })?.path).toEqual(['metadata', 'k\\u0000']);
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    let value: unknown = 'deep\u0000';
    for (let index = 0; index < 100_000; index += 1) value = [value];
    expect(findUnstorableText(value, { allowNul: false })?.path).toHaveLength(100_000);
  });

  it('passes well-formed text, emoji, RTL marks and the BOM', () => {
    expect(findUnstorableText({ text: 'héllo 👋 \u202e\ufeff' }, { allowNul: false })).toBeUndefined();
  });
});

describe('unstorableTextError', () => {
  it('is a 400 invalid_request whose param names the field, and whose message can itself be stored', () => {
    const error = unstorableTextError('request body', ['metadata', 'k\u0000'], 'nul');
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_request');
    expect(error.param).toBe('metadata.k\\u0000');
    expect(error.message).not.toContain('\u0000');
    expect(error.message).toContain('NUL');
  });
});

describe('storableJsonReplacer', () => {
  it('drops NUL and replaces lone surrogates in values and keys, at any depth, and leaves good text alone', () => {
    const answer = { id: 'asst_1', metadata: { 'k\u0000': 'v\u0000', list: ['\ud800x', 'é 👋'] }, n: 1, ok: null };
    expect(JSON.parse(JSON.stringify(answer, storableJsonReplacer))).toEqual({ id: 'asst_1', metadata: { k: 'v', list: ['\ufffdx', 'é 👋'] }, n: 1, ok: null });
  });
});

describe('storableJson', () => {
  it('is plain JSON.stringify for storable values, and drops NUL and mends lone surrogates otherwise', async () => {
    const { storableJson } = await import('../../../src/core/storable-text.ts');
    const plain = { text: 'a "quoted" \\u0000 written out, not a NUL', list: [1, 'é'] };
    expect(storableJson(plain)).toBe(JSON.stringify(plain));
    expect(JSON.parse(storableJson({ text: 'a\u0000b', odd: 'x\ud800y' }))).toEqual({ text: 'ab', odd: 'x\ufffdy' });
  });
});
