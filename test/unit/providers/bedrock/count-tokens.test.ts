import { describe, expect, it } from 'vitest';
import { countTokensBody, countTokensModelPath, readBedrockTokenCount } from '../../../../src/providers/bedrock/count-tokens.ts';
import { UpstreamError } from '../../../../src/providers/upstream-error.ts';

describe("Bedrock's CountTokens request", () => {
  it("counts an inference profile's tokens on its bare model id, escaped as one path segment", () => {
    expect(countTokensModelPath('anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens');
    for (const profile of ['us', 'eu', 'apac', 'global', 'us-gov', 'jp', 'au']) {
      expect(countTokensModelPath(`${profile}.anthropic.claude-haiku-4-5-20251001-v1:0`)).toBe('/model/anthropic.claude-haiku-4-5-20251001-v1%3A0/count-tokens');
    }
    expect(countTokensModelPath('amazon.nova-pro-v1:0')).toBe('/model/amazon.nova-pro-v1%3A0/count-tokens');
  });

  it('sends the Converse fields CountTokens takes, under input.converse, and leaves inference settings and verbatim extras out', () => {
    const body = JSON.parse(
      countTokensBody({
        model: 'anthropic.claude-test-v1:0',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: [{ type: 'text', text: 'hello' }] },
        ],
        tools: [{ name: 'lookup', parameters: { type: 'object', properties: {} } }],
        temperature: 0.2,
        maxOutputTokens: 100,
        providerOptions: { bedrock: { guardrailConfig: { guardrailIdentifier: 'g', guardrailVersion: '1' } } },
      }),
    ) as { input: { converse: Record<string, unknown> } };
    expect(Object.keys(body)).toEqual(['input']);
    expect(Object.keys(body.input.converse).sort()).toEqual(['messages', 'system', 'toolConfig']);
    expect(body.input.converse['system']).toEqual([{ text: 'be brief' }]);
  });

  it('reads inputTokens, and calls any other answer an unexpected body', () => {
    expect(readBedrockTokenCount('{"inputTokens": 42}')).toEqual({ inputTokens: 42 });
    for (const text of ['{"tokens": 42}', 'not json']) expect(() => readBedrockTokenCount(text)).toThrow(UpstreamError);
  });
});
