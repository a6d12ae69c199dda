import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PassthroughApp, startPassthroughApp } from '../support/passthrough-app.ts';
import { bearer, type TestApp } from '../support/test-app.ts';

/**
 * A client that has read a deleted object's answer may ask for the object at once: by
 * then Junction must no longer hold it as the account's. The upstream here takes a lock
 * that stalls the forgetting before it answers the delete, so the order is observable.
 */
let app: TestApp;
let baseUrl: string;
let key: string;
let beforeDeleteAnswer: () => Promise<void> = async () => undefined;

const upstream = createServer((incoming, response) => {
  incoming.resume();
  incoming.on('end', async () => {
    const id = 'file-delete-order';
    if (incoming.method === 'DELETE') await beforeDeleteAnswer();
    const body = incoming.method === 'DELETE' ? { id, object: 'file', deleted: true } : { id, object: 'file', bytes: 2, filename: 'a.txt', purpose: 'assistants' };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  });
});

let passthrough: PassthroughApp | undefined;
beforeAll(async () => {
  passthrough = await startPassthroughApp(upstream);
  ({ app, key } = passthrough);
  baseUrl = await app.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => passthrough?.close());

/** Resolves at the answer's status line, before its body. */
const answerStarts = (method: string, path: string): Promise<IncomingMessage> =>
  new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${baseUrl}${path}`, { method, headers: { ...bearer(key), 'content-type': 'application/json' } }, resolve);
    outgoing.on('error', reject);
    outgoing.end(method === 'POST' ? '{"purpose":"assistants"}' : undefined);
  });

const owned = async (): Promise<number> => (await app.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM passthrough_objects WHERE upstream_id = 'file-delete-order'")).rows[0]?.n ?? -1;

describe('a pass-through delete', () => {
  it("answers only once the object is no longer the account's", async () => {
    const created = await answerStarts('POST', '/v1/files');
    expect(created.statusCode).toBe(200);
    created.resume();
    await new Promise((done) => created.on('end', done));
    expect(await owned()).toBe(1);

    // The lock is taken after Junction's own reads for the call, right before the upstream answers.
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let holding: Promise<void> | undefined;
    let lockTaken = () => {};
    const taken = new Promise<void>((resolve) => (lockTaken = resolve));
    beforeDeleteAnswer = () =>
      new Promise<void>((locked) => {
        holding = app.services.db.transaction(async (tx) => {
          await tx.query("SELECT 1 FROM passthrough_objects WHERE upstream_id = 'file-delete-order' FOR UPDATE");
          locked();
          lockTaken();
          await gate;
        });
      });

    const answer = answerStarts('DELETE', '/v1/files/file-delete-order');
    // Watched from the moment the upstream answers: nothing may reach the client while the forgetting waits.
    await taken;
    const first = await Promise.race([answer.then(() => 'answered'), new Promise((done) => setTimeout(() => done('still waiting'), 400))]);
    release();
    await holding;
    expect(first).toBe('still waiting');
    const deleted = await answer;
    expect(deleted.statusCode).toBe(200);
    let text = '';
    for await (const chunk of deleted) text += String(chunk);
    expect(JSON.parse(text)).toEqual({ id: 'file-delete-order', object: 'file', deleted: true });
    expect(await owned()).toBe(0);
  });
});
