import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { FastifyInstance } from 'fastify';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/** No key or secret reaches the logs, whichever header or query parameter carried it. */
let t: TestApp;
let app: FastifyInstance;
const lines: string[] = [];

beforeAll(async () => {
  t = await startTestApp({ LOG_LEVEL: 'trace' });
  app = await buildApp(t.services, {
    logStream: new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    }),
  });
});
afterAll(async () => {
  await app.close();
  await t.close();
});

describe('logs', () => {
  it('redact keys in Authorization, x-api-key, x-goog-api-key and ?key=, ?api_key=, ?token=, ?access_token=', async () => {
    const key = await t.key('model');
    const forged = 'sk-jn-NOTAREALKEY000000000000000000000000000000000000000000';
    await app.inject({ url: '/v1/key', headers: { authorization: `Bearer ${key}` } });
    await app.inject({ method: 'POST', url: '/v1/messages', headers: { 'x-api-key': key }, payload: {} });
    await app.inject({ method: 'POST', url: `/v1beta/models/google%2Fx:generateContent?key=${key}`, payload: {} });
    await app.inject({ method: 'POST', url: '/v1beta/models/google%2Fx:generateContent', headers: { 'x-goog-api-key': forged }, payload: {} });
    await app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { authorization: `Bearer ${forged}` }, payload: { model: 'x', messages: [] } });
    await app.inject({ url: `/v1/models?api_key=${key}&x=1` });
    await app.inject({ url: `/v1/models?token=${forged}` });
    await app.inject({ url: `/agents/v1/models?access_token=${forged}` });
    const log = lines.join('');
    expect(log).toContain('incoming request');
    expect(log).toContain('api_key=[REDACTED]&x=1');
    expect(log).toContain('[REDACTED]');
    expect(log).not.toContain(key.slice(6));
    expect(log).not.toContain('NOTAREALKEY');
  });
});
