import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetLeases } from '../../src/billing/budget-leases.ts';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { isJunctionError } from '../../src/core/errors.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * A process that has not confirmed its registration lately (its heartbeats fail: the
 * database is out) may not take new leases: a call that needs one is refused with 503 and
 * Retry-After, as every other database outage is, so clients back off and retry.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  await runAdminCommand(app.services, { command: 'credits.grant', amount: '10', currency: 'USD' });
});
afterAll(async () => app.close());

describe('a lease that cannot be confirmed', () => {
  it('is refused with 503 and Retry-After', async () => {
    const plain = await app.key('model', { totalLimitMicros: 5_000_000 });
    const key = await app.services.authenticator.authenticate(plain, { kinds: ['model'] });
    const unconfirmed = { id: app.services.registration?.id ?? 'unregistered', epoch: 0, canServeLeases: () => false, onReclaimed: () => undefined };
    // Holds nothing (it is refused before taking any lease): its idle timer does not keep the process alive.
    const leases = new BudgetLeases(app.services.db, unconfirmed, app.services.settlements, () => new Date());
    const error = await leases.reserve(key, 1_000).catch((failure: unknown) => failure);
    expect(isJunctionError(error) && { status: error.status, code: error.code, retryAfter: error.headers['retry-after'] }).toEqual({ status: 503, code: 'service_unavailable', retryAfter: '2' });
  });
});
