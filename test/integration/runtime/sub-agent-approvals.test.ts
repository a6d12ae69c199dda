import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** An approval a sub-agent asks for says which agent raised it, as the sub-agent's steps do. */
const runtime = useRuntimeGateway({
  boss: 'name: Boss\nmodel: openai/test-tool\ninstructions: Delegate.\nagents: [guarded]\n',
  guarded: 'name: Guarded\ndescription: Shouts, with permission.\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [{ name: echo_upper, require_approval: true }]\n',
});

type Item = { type: string; id: string; name?: string; agent?: string };

describe(`approvals raised inside a sub-agent on ${engineName()}`, () => {
  it('the approval request names the sub-agent; the run’s own requests name none', async () => {
    const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify({ model: 'boss', input: 'get it shouted' }) });
    const json = (await response.json()) as { output: Item[] };
    expect(response.status, JSON.stringify(json)).toBe(200);
    const request = json.output.find((item) => item.type === 'junction:approval_request');
    expect(request).toMatchObject({ name: 'echo_upper', agent: 'guarded' });

    const direct = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify({ model: 'guarded', input: 'shout' }) });
    const own = ((await direct.json()) as { output: Item[] }).output.find((item) => item.type === 'junction:approval_request');
    expect(own?.name).toBe('echo_upper');
    expect(own?.agent).toBeUndefined();
  });
});
