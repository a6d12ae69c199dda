import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { JunctionError } from '../../src/core/errors.ts';
import { KeyRateLimiter } from '../../src/pipeline/rate-limiter.ts';
import { bearer } from '../support/test-app.ts';
import { startGateway, type GatewayHarness } from '../support/gateway-harness.ts';
import { redisAnswers, TEST_REDIS_URL } from '../support/redis-probe.ts';

/**
 * With REDIS_URL the requests-per-minute window is shared by every process. Runs
 * against the local Redis (CI starts one); skipped where none answers.
 */
const REDIS_URL = TEST_REDIS_URL;

const available = await redisAnswers();

describe.skipIf(!available)('rate limits in Redis', () => {
  const clients: Redis[] = [];
  let gateway: GatewayHarness;
  beforeAll(async () => {
    gateway = await startGateway({ REDIS_URL });
  });
  afterAll(async () => {
    await gateway.close();
    for (const client of clients) client.disconnect();
  });

  it('two processes share one window per key', async () => {
    const [first, second] = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
    clients.push(first, second);
    const limiters = [new KeyRateLimiter(first), new KeyRateLimiter(second)];
    const keyId = randomUUID();
    await limiters[0]?.consume(keyId, 3);
    await limiters[1]?.consume(keyId, 3);
    const third = await limiters[0]?.consume(keyId, 3);
    expect(third?.remaining).toBe(0);
    const refused = await limiters[1]?.consume(keyId, 3).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(JunctionError);
    expect((refused as JunctionError).code).toBe('rate_limit_exceeded');
    expect(Number((refused as JunctionError).headers['retry-after'])).toBeGreaterThan(0);
  });

  it('answers 503 with Retry-After when Redis does not answer, never skipping the limit', async () => {
    const unreachable = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: 1, retryStrategy: () => 50, lazyConnect: true });
    unreachable.on('error', () => undefined);
    clients.push(unreachable);
    const refused = await new KeyRateLimiter(unreachable).consume(randomUUID(), 5).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(JunctionError);
    expect((refused as JunctionError).code).toBe('service_unavailable');
    expect((refused as JunctionError).headers['retry-after']).toBe('2');
    expect((refused as JunctionError).message).not.toContain('127.0.0.1');
  });

  it('REDIS_URL wires the gateway to it', async () => {
    await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '5', currency: 'USD' });
    const key = await gateway.key('model', { rateLimitRpm: 2 });
    const chat = () => gateway.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(key), payload: { model: 'openai/test-echo', messages: [{ role: 'user', content: 'hi' }] } });
    expect((await chat()).statusCode).toBe(200);
    expect((await chat()).statusCode).toBe(200);
    const refused = await chat();
    expect(refused.statusCode).toBe(429);
    // The window lives in Redis: a key the gateway just used has a counter there.
    const keyId = (await gateway.services.db.query<{ id: string }>('SELECT id FROM api_keys WHERE rate_limit_rpm = 2 ORDER BY position DESC LIMIT 1')).rows[0]?.id;
    const probe = new Redis(REDIS_URL);
    clients.push(probe);
    expect(await probe.get(`junction-rpm-2:${keyId}`)).toBe('3');
  });
});
