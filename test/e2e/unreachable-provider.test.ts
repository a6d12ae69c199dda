import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startFakeOpenAIUpstream } from '../support/fake-openai-upstream.ts';
import { startGateway, TEST_CONFIG, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * A provider whose base URL refuses connections failed at once: 502 "could not be
 * reached", never the 504 "did not answer in time" that belongs to a provider that
 * kept the gateway waiting (checked here too, on a provider with a 100 ms timeout).
 */
let gateway: GatewayHarness;
let hanging: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
let configDir: string;
let openai: OpenAI;
let anthropic: Anthropic;

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  hanging = await startFakeOpenAIUpstream();
  configDir = mkdtempSync(join(tmpdir(), 'junction-unreachable-'));
  const config = join(configDir, 'junction.yaml');
  const slowProvider = `providers:
  slow:
    kind: openai-compatible
    base_url: ${hanging.url}
    timeout_ms: 100
    models:
      - name: test-hang
        capabilities: [chat]
        prices: { input: 10, output: 20 }
`;
  writeFileSync(config, slowProvider + readFileSync(TEST_CONFIG, 'utf8'));
  gateway = await startGateway({ OPENAI_BASE_URL: `http://127.0.0.1:${await closedPort()}/v1`, JUNCTION_CONFIG: config });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  const modelKey = await gateway.key('model');
  openai = new OpenAI({ apiKey: modelKey, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: modelKey, baseURL: gateway.baseUrl, maxRetries: 0 });
});
afterAll(async () => {
  await gateway.close();
  await hanging.close();
  rmSync(configDir, { recursive: true, force: true });
});

const ask = [{ role: 'user' as const, content: 'x' }];

describe('a provider that refuses connections', () => {
  it('is a 502 saying the provider could not be reached, streamed or not', async () => {
    for (const stream of [false, true]) {
      const error = await openai.chat.completions.create({ model: 'openai/test-echo', messages: ask, stream }).catch((caught: unknown) => caught);
      expect(error, `stream: ${stream}`).toBeInstanceOf(OpenAI.InternalServerError);
      const failure = error as InstanceType<typeof OpenAI.InternalServerError>;
      expect(failure.status).toBe(502);
      expect(failure.error).toMatchObject({ code: 'upstream_error', message: 'openai could not be reached: connection failed (ECONNREFUSED).' });
    }
  });

  it('is a 502 in the Anthropic shape too', async () => {
    const error = await anthropic.messages.create({ model: 'openai/test-echo', max_tokens: 10, messages: ask }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as InstanceType<typeof Anthropic.InternalServerError>).status).toBe(502);
    expect(String((error as Error).message)).toContain('could not be reached');
  });
});

describe('a provider that keeps the gateway waiting', () => {
  it('is still a 504 that says it did not answer in time', async () => {
    const error = await openai.chat.completions.create({ model: 'slow/test-hang', messages: ask }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    const failure = error as InstanceType<typeof OpenAI.InternalServerError>;
    expect(failure.status).toBe(504);
    expect(failure.error).toMatchObject({ code: 'upstream_timeout' });
    expect(failure.message).toContain('slow did not answer in time');
  });
});
