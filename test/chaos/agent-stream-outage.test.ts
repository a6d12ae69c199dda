import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { runtimeFolders } from '../support/runtime-fixtures.ts';
import { type ScratchCluster, scratchClusterAvailable, startScratchCluster } from '../support/scratch-cluster.ts';

/**
 * The database stops while agent runs stream: after the SSE headers went out, the client
 * gets the outage answer (503 service_unavailable, retry shortly) as the error frame, not
 * an internal_error. Runs on a PostgreSQL cluster of its own, in the PostgreSQL pass.
 */
const enabled = Boolean(process.env.DATABASE_URL) && scratchClusterAvailable();
const folders = runtimeFolders({ slow: 'name: Slow\nmodel: openai/test-slow\ninstructions: Take your time.\n' });
let cluster: ScratchCluster;
let gateway: GatewayHarness;
let key = '';

beforeAll(async () => {
  if (!enabled) return;
  cluster = await startScratchCluster();
  gateway = await startGateway({ ...folders.env, DATABASE_URL: cluster.url });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  key = await gateway.key('agent');
}, 60_000);
afterAll(async () => {
  await gateway?.close().catch(() => undefined);
  await cluster?.destroy();
  folders.remove();
});

/** Opens a stream and reads it to its end; `started` resolves once the first bytes of the answer arrived. */
function stream(path: string, body: Record<string, unknown>) {
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const text = (async () => {
    const response = await fetch(`${gateway.baseUrl}/agents/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let all = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return all;
      all += decoder.decode(value, { stream: true });
      if (all.includes('tick-1')) markStarted();
    }
  })();
  return { started, text };
}

describe.skipIf(!enabled)('a database outage while agent runs stream', () => {
  it('ends each stream with the 503 outage frame', async () => {
    const chat = stream('/chat/completions', { model: 'slow', messages: [{ role: 'user', content: 'outage' }], stream: true });
    const responses = stream('/responses', { model: 'slow', input: 'outage', stream: true });
    await Promise.all([chat.started, responses.started]);
    await cluster.stop();
    const [chatText, responsesText] = await Promise.all([chat.text, responses.text]);
    for (const text of [chatText, responsesText]) {
      expect(text).toContain('service_unavailable');
      expect(text).not.toContain('internal_error');
    }
  }, 60_000);
});
