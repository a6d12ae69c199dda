import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';

/**
 * Streams that end badly are billed for what was streamed: a client that disconnects,
 * a client that stops reading (cut after JUNCTION_STREAM_IDLE_TIMEOUT_MS), an upstream
 * that dies mid-stream.
 */
let gateway: GatewayHarness;
let key: string;

beforeAll(async () => {
  gateway = await startGateway({ JUNCTION_STREAM_IDLE_TIMEOUT_MS: '1000', JUNCTION_AGENTS_DIR: '/nonexistent', JUNCTION_TOOLS_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '100', currency: 'USD' });
  key = await gateway.key('model');
});
afterAll(async () => gateway?.close());

type Row = { status: string; output_tokens: number; input_tokens: number; cost_micros: number };

async function rowFor(marker: string, timeoutMs = 8_000): Promise<Row | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await gateway.settle();
    const found = await gateway.services.db.query<Row & { id: string }>('SELECT status, output_tokens, input_tokens, cost_micros::bigint AS cost_micros FROM usage_log WHERE request_id = $1', [
      marker,
    ]);
    if (found.rows[0] || Date.now() > deadline) return found.rows[0] && { ...found.rows[0], cost_micros: Number(found.rows[0].cost_micros) };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const streamRequest = (model: string, content: string) => ({
  method: 'POST',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content }] }),
});

describe('cut streams', () => {
  it('bills a client that disconnects mid-stream as client_closed, for the tokens streamed', async () => {
    const controller = new AbortController();
    const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, { ...streamRequest('openai/test-slow', 'cut me off'), signal: controller.signal });
    const requestId = response.headers.get('x-request-id') as string;
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    for (let index = 0; index < 6; index += 1) await reader.read();
    controller.abort();
    const row = await rowFor(requestId);
    console.log(`[chaos] client disconnect mid-stream: status ${row?.status}, output tokens ${row?.output_tokens}, cost ${row?.cost_micros} µUSD`);
    expect(row?.status).toBe('client_closed');
    expect(row?.output_tokens).toBeGreaterThan(0);
    expect(row?.cost_micros).toBeGreaterThan((row?.input_tokens ?? 0) * 10);
  });

  it('cuts a client that stops reading after the idle timeout and bills it as client_closed', async () => {
    const url = new URL(gateway.baseUrl);
    const content = 'word '.repeat(600_000);
    const request = streamRequest('openai/test-echo', content);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(request.body)}\r\n\r\n${request.body}`,
    );
    // Read only the first bytes (to learn the request id), then stop reading.
    const head = await new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))));
    socket.pause();
    const requestId = /x-request-id: (\S+)/i.exec(head)?.[1] as string;
    const closed = new Promise<number>((resolve) => {
      const startedAt = Date.now();
      socket.once('close', () => resolve(Date.now() - startedAt));
      // A paused socket only notices the server's close once it reads again: resume after the timeout.
      setTimeout(() => socket.resume(), 3_000);
    });
    const row = await rowFor(requestId, 15_000);
    const closedAfterMs = await closed;
    console.log(`[chaos] slow reader: status ${row?.status}, output tokens ${row?.output_tokens}, socket closed ${closedAfterMs} ms after it stopped reading`);
    expect(row?.status).toBe('client_closed');
    expect(row?.cost_micros).toBeGreaterThan(0);
    socket.destroy();
  });

  it('bills a stream whose upstream dies mid-stream for what it streamed', async () => {
    const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, streamRequest('openai/test-fail-midstream', 'die halfway please'));
    const requestId = response.headers.get('x-request-id') as string;
    await response.text().catch(() => '');
    const row = await rowFor(requestId);
    console.log(`[chaos] upstream died mid-stream: status ${row?.status}, output tokens ${row?.output_tokens}, cost ${row?.cost_micros} µUSD`);
    expect(row?.status).toBe('upstream_error');
    expect(row?.output_tokens).toBeGreaterThan(0);
    expect(row?.cost_micros).toBeGreaterThan(0);
  });
});
