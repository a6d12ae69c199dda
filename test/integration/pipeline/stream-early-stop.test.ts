import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';

/**
 * A consumer that stops reading a pipeline stream (an agent run cancelled between two
 * events, say) stops the upstream call: its connection closes, and the call is billed
 * as client_closed for what was streamed.
 */
let gateway: GatewayHarness;
let key: string;

beforeAll(async () => {
  gateway = await startGateway();
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '5', currency: 'USD' });
  key = await gateway.key('model');
});
afterAll(async () => gateway.close());

describe('a pipeline stream left early', () => {
  it('closes the upstream connection and bills the call as client_closed', async () => {
    const record = await gateway.services.authenticator.authenticate(key, { kinds: ['model'] });
    const disconnectsBefore = gateway.openai.clientDisconnects;
    const call = await gateway.services.chat.stream(
      // The caller's own signal never fires: only leaving the iteration stops the call.
      { key: record, requestId: 'req_early_stop', endpoint: 'chat.completions', signal: new AbortController().signal },
      { model: 'openai/test-slow', request: { messages: [{ role: 'user', content: [{ type: 'text', text: 'take your time' }] }] } },
    );
    let events = 0;
    for await (const event of call.events) {
      if (event.type === 'text-delta') events += 1;
      if (events === 2) break;
    }
    const deadline = Date.now() + 5_000;
    while (gateway.openai.clientDisconnects === disconnectsBefore && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
    expect(gateway.openai.clientDisconnects).toBeGreaterThan(disconnectsBefore);
    await gateway.settle();
    const rows = await gateway.services.db.query<{ status: string; output_tokens: number }>("SELECT status, output_tokens FROM usage_log WHERE request_id = 'req_early_stop'");
    expect(rows.rows).toEqual([{ status: 'client_closed', output_tokens: expect.any(Number) }]);
    expect(rows.rows[0]?.output_tokens).toBeGreaterThan(0);
  });
});
