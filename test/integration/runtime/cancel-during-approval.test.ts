import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** Cancel on a response waiting for approval is final: the run ends cancelled and no approval resumes it. */
const runtime = useRuntimeGateway({
  approver: 'name: Approver\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [{ name: echo_upper, require_approval: true }]\n',
});

type Resource = { id: string; status: string; output: Array<{ type: string; id: string }>; error?: { code: string; message: string } };
const post = async (path: string, body?: Record<string, unknown>) => {
  const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1${path}`, {
    method: 'POST',
    headers: body ? runtime.headers() : { authorization: `Bearer ${runtime.key}` },
    ...(body && { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Resource };
};
const toolRows = async () => {
  await runtime.gateway.settle();
  const rows = await runtime.gateway.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM usage_log WHERE requested_model = 'tool:echo_upper'`);
  return rows.rows[0]?.n ?? 0;
};

describe(`cancel during an approval on ${engineName()}`, () => {
  it.each([true, false])(
    'background %s: ends cancelled; a later approval is a 409 approval_closed and the tool never runs',
    async (background) => {
      const created = await post('/responses', { model: 'approver', input: 'shout fake', background });
      let paused = created.json;
      for (let attempt = 0; attempt < 200 && !paused.output.some((item) => item.type === 'junction:approval_request'); attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        paused = (await (await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses/${created.json.id}`, { headers: runtime.headers() })).json()) as Resource;
      }
      const request = paused.output.find((item) => item.type === 'junction:approval_request');
      expect(request, JSON.stringify(paused)).toBeDefined();
      const before = await toolRows();

      const cancelled = await post(`/responses/${paused.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.json.status).toBe('cancelled');
      const read = (await (await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses/${paused.id}`, { headers: runtime.headers() })).json()) as Resource;
      expect(read.status).toBe('cancelled');

      const approved = await post('/responses', {
        model: 'approver',
        previous_response_id: paused.id,
        input: [{ type: 'junction:approval_response', approval_request_id: request?.id, approve: true }],
      });
      expect(approved.status).toBe(409);
      expect(approved.json.error).toMatchObject({ code: 'approval_closed' });
      expect(approved.json.error?.message).toContain('cancelled');
      expect(await toolRows()).toBe(before);
    },
    30_000,
  );
});
