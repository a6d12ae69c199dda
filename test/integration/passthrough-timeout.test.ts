import { createServer, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PassthroughApp, startPassthroughApp } from '../support/passthrough-app.ts';
import { bearer, type TestApp } from '../support/test-app.ts';

/**
 * The pass-through under a request's `x-junction-timeout-ms`: against a bare upstream that
 * records the headers reaching it and, while `stalled`, never answers.
 */
let app: TestApp;
let key: string;
let stalled = false;
const reached: IncomingHttpHeaders[] = [];
const upstream = createServer((request, response) => {
  reached.push(request.headers);
  request.resume();
  if (stalled) return;
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'asst_1', object: 'assistant' })));
});

let passthrough: PassthroughApp | undefined;
beforeAll(async () => {
  passthrough = await startPassthroughApp(upstream);
  ({ app, key } = passthrough);
});
afterAll(async () => passthrough?.close());

const create = (timeout: string) =>
  app.app.inject({ method: 'POST', url: '/v1/assistants', headers: { ...bearer(key), 'content-type': 'application/json', 'x-junction-timeout-ms': timeout }, payload: '{}' });

describe('x-junction-timeout-ms on the pass-through', () => {
  it('is Junction’s own: checked, and never sent upstream', async () => {
    expect((await create('soon')).statusCode).toBe(400);
    const response = await create('5000');
    expect(response.statusCode, response.body).toBe(200);
    expect(reached.at(-1)).not.toHaveProperty('x-junction-timeout-ms');
  });

  it('shortens the wait for a provider that does not answer', async () => {
    stalled = true;
    const response = await create('40');
    expect(response.statusCode, response.body).toBe(504);
    expect(response.json().error.code).toBe('upstream_timeout');
  });
});
