import { describe, expect, it } from 'vitest';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';
import { engineName } from '../../support/test-database.ts';

/** A call to a tool the run does not have goes back to the model as an error; only tools the request declared end the response for the client. */
const runtime = useRuntimeGateway({
  dreamer: 'name: Dreamer\nmodel: openai/test-phantom\ninstructions: Use your tools.\ntools: [echo_upper]\n',
});

type Item = { type: string; name?: string; output?: string; content?: Array<{ text: string }> };
type Resource = { status: string; output: Item[] };
const post = async (body: Record<string, unknown>) => {
  const response = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, { method: 'POST', headers: runtime.headers(), body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as Resource;
};

describe(`calls to tools the run does not have on ${engineName()}`, () => {
  it('a made-up tool name is an error result the model reads, and the run goes on to an answer', async () => {
    const response = await post({ model: 'dreamer', input: 'go' });
    expect(response.status).toBe('completed');
    expect(response.output.some((item) => item.type === 'function_call')).toBe(false);
    const answer = response.output.at(-1);
    expect(answer?.type).toBe('message');
    expect(answer?.content?.[0]?.text).toContain('Tool made_up_tool returned: Error: there is no tool "made_up_tool"');
  });

  it('the same name declared by the request as a client tool ends the response for the client', async () => {
    const response = await post({ model: 'dreamer', input: 'go', tools: [{ type: 'function', name: 'made_up_tool', parameters: { type: 'object', properties: {} } }] });
    expect(response.output.map((item) => [item.type, item.name])).toEqual([['function_call', 'made_up_tool']]);
  });
});
