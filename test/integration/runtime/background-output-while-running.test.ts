import { expect, it } from 'vitest';
import { waitForBackgroundResponse } from '../../support/background-response.ts';
import { useRuntimeGateway } from '../../support/runtime-fixtures.ts';

/** A GET of a background response while its model streams shows the text streamed so far. */
const runtime = useRuntimeGateway({ slow: 'name: Slow\nmodel: openai/test-slow\ninstructions: Take your time.\n' });

type Resource = { id: string; status: string; output: Array<{ type: string; content?: Array<{ type: string; text: string }> }> };
const textOf = (resource: Resource) =>
  resource.output
    .flatMap((item) => item.content ?? [])
    .map((part) => part.text)
    .join('');

it('GET of a running background response has the streamed text in its output', async () => {
  const created = await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses`, {
    method: 'POST',
    headers: runtime.headers(),
    body: JSON.stringify({ model: 'slow', input: 'a long answer please', background: true }),
  });
  const { id } = (await created.json()) as Resource;
  let running: Resource | undefined;
  for (let attempt = 0; attempt < 200 && running === undefined; attempt += 1) {
    const resource = (await (await fetch(`${runtime.gateway.baseUrl}/agents/v1/responses/${id}`, { headers: runtime.headers() })).json()) as Resource;
    // Part of the answer only: the model is still streaming it (it ends with tick-30 and the echo).
    if (resource.status === 'in_progress' && textOf(resource).includes('tick-1') && !textOf(resource).includes('tick-30')) running = resource;
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(running, 'a GET while the answer streamed showed its text').toBeDefined();
  expect(running?.output[0]).toMatchObject({ type: 'message', content: [{ type: 'output_text' }] });
  const done = await waitForBackgroundResponse<Resource>(runtime.gateway.baseUrl, runtime.headers(), id);
  expect(done.status).toBe('completed');
  expect(textOf(done).startsWith(textOf(running as Resource))).toBe(true);
});
