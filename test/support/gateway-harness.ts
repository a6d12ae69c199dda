import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/core/project-root.ts';
import { startFakeAnthropicUpstream } from './fake-anthropic-upstream.ts';
import { startFakeGeminiUpstream } from './fake-gemini-upstream.ts';
import { startFakeOpenAIUpstream } from './fake-openai-upstream.ts';
import { startTestApp, type TestApp } from './test-app.ts';

// From the project root, not this file: the bench compiles this file into bench-build/.
export const TEST_CONFIG = join(PROJECT_ROOT, 'test/fixtures/gateway/junction.test.yaml');
export const UPSTREAM_KEYS = { openai: 'sk-upstream-openai', anthropic: 'sk-ant-upstream', gemini: 'gemini-upstream-key' };

export type GatewayHarness = TestApp & {
  openai: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
  anthropic: Awaited<ReturnType<typeof startFakeAnthropicUpstream>>;
  gemini: Awaited<ReturnType<typeof startFakeGeminiUpstream>>;
  /** The app listening on 127.0.0.1, for the official SDK clients. */
  baseUrl: string;
  /** Writes every queued settlement (tests then read the database). */
  settle(): Promise<void>;
  /** The environment the gateway was started with (to start a second process on the same store). */
  env: Record<string, string>;
};

/**
 * The real gateway on the engine under test, with its three providers pointed at
 * fake upstreams on 127.0.0.1 that speak each provider's wire format.
 */
export async function startGateway(env: Record<string, string> = {}): Promise<GatewayHarness> {
  const openai = await startFakeOpenAIUpstream({ apiKey: UPSTREAM_KEYS.openai, slowChunkDelayMs: 50 });
  const anthropic = await startFakeAnthropicUpstream();
  const gemini = await startFakeGeminiUpstream();
  const providerEnv = {
    OPENAI_API_KEY: UPSTREAM_KEYS.openai,
    OPENAI_BASE_URL: openai.url,
    ANTHROPIC_API_KEY: UPSTREAM_KEYS.anthropic,
    ANTHROPIC_BASE_URL: anthropic.url,
    GEMINI_API_KEY: UPSTREAM_KEYS.gemini,
    GEMINI_BASE_URL: gemini.url,
    JUNCTION_CONFIG: TEST_CONFIG,
    ...env,
  };
  const app = await startTestApp(providerEnv, { env: providerEnv, retry: { retries: 2, baseDelayMs: 5, maxRetryAfterMs: 2_000 } });
  const baseUrl = await app.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    ...app,
    openai,
    anthropic,
    gemini,
    baseUrl,
    env: providerEnv,
    settle: () => app.services.settlements.drain(),
    async close() {
      await app.close();
      await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
    },
  };
}
