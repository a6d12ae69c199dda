import { join } from 'node:path';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { disableTracing, enableTracing } from '../../../src/ops/tracing.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';

/** Traces: request → pipeline (GenAI attributes, cost) → upstream attempt; agent run → model call and tool call; traceparent continued. */
const exporter = new InMemorySpanExporter();
let gateway: GatewayHarness;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

beforeAll(async () => {
  await enableTracing({ exporter });
  const fixtures = join(import.meta.dirname, '../../fixtures/agents-e2e');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(fixtures, 'agents'), JUNCTION_TOOLS_DIR: join(fixtures, 'tools'), JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '5', currency: 'USD' });
});
afterAll(async () => {
  await gateway?.close();
  await disableTracing();
});

describe('OpenTelemetry spans', () => {
  it('continues traceparent through request, pipeline and attempt, with gen_ai attributes and cost', async () => {
    exporter.reset();
    const key = await gateway.key('model');
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...bearer(key), traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` },
      payload: { model: 'openai/test-echo', messages: [{ role: 'user', content: 'trace me' }] },
    });
    expect(response.statusCode).toBe(200);
    const spans = exporter.getFinishedSpans();
    const server = spans.find((span) => span.name === 'POST /v1/chat/completions');
    const chat = spans.find((span) => span.name === 'chat openai/test-echo');
    const attempt = spans.find((span) => span.name === 'attempt openai');
    expect(server?.spanContext().traceId).toBe(TRACE_ID);
    expect(chat?.spanContext().traceId).toBe(TRACE_ID);
    expect(chat?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
    expect(attempt?.parentSpanContext?.spanId).toBe(chat?.spanContext().spanId);
    expect(chat?.attributes).toMatchObject({ 'gen_ai.system': 'openai', 'gen_ai.request.model': 'openai/test-echo', 'gen_ai.response.model': 'openai/test-echo' });
    expect(chat?.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(chat?.attributes['junction.cost_usd']).toBeGreaterThan(0);
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain(key.slice(6));
  });

  it('draws an agent run with its model call and tool call', async () => {
    exporter.reset();
    const agentKey = await gateway.key('agent');
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/agents/v1/chat/completions',
      headers: bearer(agentKey),
      payload: { model: 'helper', messages: [{ role: 'user', content: 'use your tool' }] },
    });
    expect(response.statusCode).toBe(200);
    const spans = exporter.getFinishedSpans();
    const run = spans.find((span) => span.name === 'agent.run helper');
    const calls = spans.filter((span) => span.name.startsWith('chat '));
    const tools = spans.filter((span) => span.name.startsWith('tool '));
    expect(run).toBeDefined();
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((span) => span.parentSpanContext?.spanId === run?.spanContext().spanId)).toBe(true);
    expect(tools.length).toBeGreaterThan(0);
    expect(tools[0]?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
  });
});
