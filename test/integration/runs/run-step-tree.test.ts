import { beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import type { RunLookup, RunStepView } from '../../../src/console/contract/runs.ts';
import { type ConsoleSession, signIn } from '../../support/console-session.ts';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** A run's steps as a tree: a sub-agent's steps under the call that asked it, and approvals with who answered them. */
const runtime = useRuntimeGateway({
  boss: 'name: Boss\nmodel: openai/test-tool\ninstructions: Delegate.\nagents: [helper]\n',
  helper: 'name: Helper\ndescription: Shouts things.\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [echo_upper]\n',
  approver: 'name: Approver\nmodel: openai/test-tool\ninstructions: Use your tool.\ntools: [{ name: echo_upper, require_approval: true }]\n',
});
let owner: ConsoleSession;

beforeAll(async () => {
  await runAdminCommand(runtime.gateway.services, { command: 'users.create', email: 'owner@example.com', password: 'owner password 1', role: 'owner' });
  owner = await signIn(runtime.gateway.app, 'owner@example.com', 'owner password 1');
});

type Item = { type: string; id: string };
const respond = async (body: Record<string, unknown>) => {
  const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string; output: Item[] };
};
const steps = async (responseId: string): Promise<RunStepView[]> => {
  const found = (await owner.request('GET', `/console/api/runs/${responseId}`)).json<RunLookup>();
  if (found.kind !== 'run') throw new Error('expected a run');
  return found.run.steps;
};
const shape = (all: RunStepView[], parent: string | null = null): unknown[] =>
  all.filter((step) => step.parent_step_id === parent).map((step) => [step.kind, step.name, step.agent_path, shape(all, step.id)]);

describe(`run step trees on ${engineName()}`, () => {
  it("nests a sub-agent's model and tool calls under the ask_ call that ran them", async () => {
    const all = await steps((await respond({ model: 'boss', input: 'get it shouted' })).id);
    expect(shape(all)).toEqual([
      [
        'model',
        'openai/test-tool',
        null,
        [
          [
            'agent',
            'ask_helper',
            null,
            [
              ['model', 'openai/test-tool', 'helper', [['tool', 'echo_upper', 'helper', []]]],
              ['model', 'openai/test-tool', 'helper', []],
            ],
          ],
        ],
      ],
      ['model', 'openai/test-tool', null, []],
    ]);
    expect(all.find((step) => step.name === 'echo_upper')).toMatchObject({ agent_id: 'helper', cost_usd: 0.002, content: { result: 'FAKE' } });
    expect(all.find((step) => step.kind === 'agent')?.content).toMatchObject({ arguments: { message: 'fake' }, result: 'Tool echo_upper returned: FAKE' });
  });

  it('records an approval with who answered it, before the tool it let run', async () => {
    const paused = await respond({ model: 'approver', input: 'shout fake' });
    const request = paused.output.at(-1) as Item;
    expect((await steps(paused.id)).map((step) => [step.kind, step.name])).toEqual([['model', 'openai/test-tool']]);
    const resumed = await respond({ model: 'approver', previous_response_id: paused.id, input: [{ type: 'junction:approval_response', approval_request_id: request.id, approve: true }] });
    const all = await steps(resumed.id);
    expect(all.map((step) => [step.kind, step.name, step.status])).toEqual([
      ['approval', 'echo_upper', 'approved'],
      ['tool', 'echo_upper', 'ok'],
      ['model', 'openai/test-tool', 'ok'],
    ]);
    expect(all[0]?.content).toEqual({ answered_by: { key_id: expect.any(String), key_name: 'agent key' }, reason: null });
  });
});
