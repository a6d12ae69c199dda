import { describe, expect, it } from 'vitest';
import { readOpenAIErrorMessage } from '../../../../src/providers/openai/openai-error.ts';
import { fixtureJson } from './load-fixture.ts';

describe('readOpenAIErrorMessage', () => {
  it('reads OpenAI error bodies', () => {
    expect(readOpenAIErrorMessage(fixtureJson('error-429.json'), '')).toBe(
      'Rate limit reached for gpt-4o-mini in organization org-abc on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.',
    );
    expect(readOpenAIErrorMessage(fixtureJson('error-401.json'), '')).toMatch(/^Incorrect API key provided/);
  });

  it('falls back to the code when the message is empty', () => {
    expect(readOpenAIErrorMessage({ error: { message: '', type: 'server_error', code: 'overloaded' } }, '')).toBe('overloaded');
  });

  it('reads the shapes compatible servers use', () => {
    expect(readOpenAIErrorMessage({ error: 'model "llama9" not found, try pulling it first' }, '')).toBe('model "llama9" not found, try pulling it first');
    expect(readOpenAIErrorMessage({ object: 'error', message: 'max_tokens is too large', code: 400 }, '')).toBe('max_tokens is too large');
    expect(readOpenAIErrorMessage({ detail: [{ loc: ['body', 'model'], msg: 'field required' }] }, '')).toBe('[{"loc":["body","model"],"msg":"field required"}]');
    expect(readOpenAIErrorMessage(undefined, '<html>502</html>')).toBeUndefined();
  });
});
