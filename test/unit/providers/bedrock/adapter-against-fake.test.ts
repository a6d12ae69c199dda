import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest, ModelStreamEvent } from '../../../../src/core/model-types.ts';
import type { ProviderConfig } from '../../../../src/providers/adapter.ts';
import { createBedrockAdapter } from '../../../../src/providers/bedrock/bedrock-adapter.ts';
import { bedrockProviderConfig } from '../../../../src/providers/bedrock/bedrock-env.ts';
import { UpstreamError } from '../../../../src/providers/upstream-error.ts';
import { FAKE_BEDROCK_CREDENTIALS, type FakeBedrock, startFakeBedrockUpstream } from '../../../support/fake-bedrock-upstream.ts';

let fake: FakeBedrock;
const options = () => ({ signal: new AbortController().signal });

beforeAll(async () => {
  fake = await startFakeBedrockUpstream({ region: 'us-west-2' });
});
afterAll(() => fake.close());

const signing = (credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } = FAKE_BEDROCK_CREDENTIALS, region = 'us-west-2'): ProviderConfig => ({
  id: 'bedrock',
  kind: 'bedrock',
  baseUrl: fake.url,
  timeoutMs: 5_000,
  bedrock: { region, credentials },
});

const ask = (model: string, text: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({ model, messages: [{ role: 'user', content: [{ type: 'text', text }] }], ...extra });

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof UpstreamError)) throw new Error(`expected an UpstreamError, got ${String(error)}`);
  return error;
}

describe('Bedrock adapter against the fake runtime', () => {
  it('signs Converse with SigV4 (session token included) and maps the answer, its usage and cache reads', async () => {
    const response = await createBedrockAdapter(signing()).generateChat(ask('anthropic.claude-cached-v1:0', 'twelve characters of text here'), options());
    expect(response.content).toEqual([{ type: 'text', text: 'twelve characters of text here' }]);
    expect(response.finishReason).toEqual({ unified: 'stop', raw: 'end_turn' });
    expect(response.id).toMatch(/^msg_bdrk_[0-9a-f-]{36}$/);
    // 30 characters → 8 input tokens, 4 of them read from the cache.
    expect(response.usage).toEqual({ inputTokens: 8, outputTokens: 5, cachedInputTokens: 4 });
    expect(fake.requests.at(-1)?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAFAKEBEDROCK00001\/\d{8}\/us-west-2\/bedrock\/aws4_request/);
  });

  it('decodes ConverseStream frames (reasoning, text, tool input) cut across reads', async () => {
    const tool = { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
    const events = await collect(createBedrockAdapter(signing()).streamChat(ask('anthropic.claude-thinking-tool-v1:0', 'Paris', { tools: [tool], reasoning: { budgetTokens: 2048 } }), options()));
    expect(events[0]).toMatchObject({ type: 'response-metadata', model: 'anthropic.claude-thinking-tool-v1:0' });
    expect(
      events
        .filter((event) => event.type === 'reasoning-delta')
        .map((event) => event.delta)
        .join(''),
    ).toBe('Let me think about it.');
    expect(events).toContainEqual({ type: 'reasoning-signature', signature: 'sig_fake' });
    expect(events).toContainEqual({ type: 'tool-call-start', index: 0, id: 'tooluse_fake_0', name: 'get_weather' });
    const args = events.flatMap((event) => (event.type === 'tool-call-delta' ? [event.argumentsDelta] : [])).join('');
    expect(JSON.parse(args)).toEqual({ city: 'Paris' });
    expect(events.at(-2)).toMatchObject({ type: 'usage', usage: { outputTokens: 6 } });
    expect(events.at(-1)).toEqual({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' } });
    // Thinking reaches Claude through additionalModelRequestFields, with room for the answer.
    expect(fake.requests.at(-1)?.body).toMatchObject({ additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 2048 } }, inferenceConfig: { maxTokens: 4096 } });
  });

  it('a wrong secret is refused as Bedrock refuses it: 403, not retryable into success', async () => {
    const wrong = { ...FAKE_BEDROCK_CREDENTIALS, secretAccessKey: 'not/the+secret' };
    const error = await failure(createBedrockAdapter(signing(wrong)).generateChat(ask('anthropic.claude-echo-v1:0', 'hi'), options()));
    expect(error.status).toBe(403);
    expect(error.upstreamMessage).toContain('signature we calculated does not match');
    expect(fake.refused.at(-1)?.reason).toBe('InvalidSignatureException');
  });

  it('a signature for another region is refused too', async () => {
    const error = await failure(createBedrockAdapter(signing(FAKE_BEDROCK_CREDENTIALS, 'eu-central-1')).generateChat(ask('anthropic.claude-echo-v1:0', 'hi'), options()));
    expect(error.status).toBe(403);
    expect(fake.refused.at(-1)?.reason).toBe('InvalidSignatureException');
  });

  it('maps ThrottlingException to a retryable 429 and ValidationException to a 400', async () => {
    const throttled = await failure(createBedrockAdapter(signing()).generateChat(ask('anthropic.claude-fail-429-v1:0', 'hi'), options()));
    expect(throttled).toMatchObject({ status: 429, retryable: true, upstreamMessage: 'Too many requests, please wait before trying again.' });
    const invalid = await failure(
      createBedrockAdapter(signing()).generateChat({ model: 'anthropic.claude-echo-v1:0', messages: [{ role: 'assistant', content: [{ type: 'text', text: 'first' }] }] }, options()),
    );
    expect(invalid).toMatchObject({ status: 400, retryable: false });
    expect(invalid.upstreamMessage).toContain('must start with a user message');
  });

  it('an exception frame mid-stream throws after the text before it, with its status', async () => {
    const seen: ModelStreamEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const event of createBedrockAdapter(signing()).streamChat(ask('anthropic.claude-stream-throttle-v1:0', 'hi'), options())) seen.push(event);
      })(),
    );
    expect(seen).toContainEqual({ type: 'text-delta', delta: 'partial' });
    expect(error).toMatchObject({ status: 429, retryable: true });
    expect(error.upstreamMessage).toContain('throttlingException');
  });
});

describe('bedrockProviderConfig', () => {
  const env = { AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret', AWS_REGION: 'eu-west-1' };

  it('signs with the AWS credentials, in the region of the deployment, its base URL or the environment', () => {
    expect(bedrockProviderConfig('m@bedrock', {}, env)).toEqual({
      id: 'm@bedrock',
      kind: 'bedrock',
      baseUrl: 'https://bedrock-runtime.eu-west-1.amazonaws.com',
      bedrock: { region: 'eu-west-1', credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' } },
    });
    expect(bedrockProviderConfig('m@bedrock', { region: 'ap-northeast-1' }, env)).toMatchObject({
      baseUrl: 'https://bedrock-runtime.ap-northeast-1.amazonaws.com',
      bedrock: { region: 'ap-northeast-1' },
    });
    expect(bedrockProviderConfig('m@bedrock', { baseUrl: 'https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com/' }, env)).toMatchObject({
      baseUrl: 'https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com',
      bedrock: { region: 'us-gov-west-1' },
    });
  });

  it("takes a deployment's own API key alone, and says what is missing", () => {
    expect(bedrockProviderConfig('m@bedrock', { keyEnv: 'TEAM_BEDROCK_KEY' }, { ...env, TEAM_BEDROCK_KEY: 'ABSK-team' })).toMatchObject({ apiKey: 'ABSK-team', bedrock: { region: 'eu-west-1' } });
    expect(bedrockProviderConfig('m@bedrock', { keyEnv: 'TEAM_BEDROCK_KEY' }, env)).toBe('environment variable TEAM_BEDROCK_KEY is not set');
    expect(bedrockProviderConfig('m@bedrock', {}, {})).toContain('AWS_ACCESS_KEY_ID');
  });
});
