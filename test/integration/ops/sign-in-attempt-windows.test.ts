import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { ORIGIN } from '../../support/console-session.ts';
import { startTestApp, type TestApp } from '../../support/test-app.ts';

/**
 * The console's sign-in attempt windows live in the database, on the server's clock: the
 * eleventh wrong password for an email and address within 15 minutes is a 429 whichever
 * process it reaches (test/chaos/three-processes-limits.test.ts spreads one over three),
 * the window ends 15 minutes after it opened, a right password clears it, and the store
 * keeps digests of emails and addresses, never the text.
 */
const PASSWORD = 'the right password 1';
let clock = new Date('2030-01-01T00:00:00Z');
let gateway: TestApp;

beforeAll(async () => {
  gateway = await startTestApp({}, { now: () => clock });
  await runAdminCommand(gateway.services, { command: 'users.create', email: 'person@example.com', password: PASSWORD, role: 'owner' });
});
afterAll(async () => gateway?.close());

const signIn = (email: string, password: string) =>
  gateway.app.inject({ method: 'POST', url: '/console/api/session', headers: { origin: ORIGIN, host: 'localhost:80' }, payload: { email, password } });

describe('sign-in attempt windows', () => {
  it('refuse the eleventh wrong password until 15 minutes after the first', async () => {
    const statuses = [];
    for (let index = 0; index < 11; index += 1) statuses.push((await signIn('person@example.com', `wrong ${index}`)).statusCode);
    expect(statuses).toEqual([...Array.from({ length: 10 }, () => 200), 429]);
    const refused = await signIn('person@example.com', PASSWORD);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBe(15 * 60);
    clock = new Date(clock.getTime() + 14 * 60_000);
    expect((await signIn('person@example.com', PASSWORD)).statusCode).toBe(429);
    clock = new Date(clock.getTime() + 60_000);
    const after = await signIn('person@example.com', PASSWORD);
    expect(after.statusCode).toBe(200);
    expect(after.json()).toEqual({ ok: true });
  });

  it('start counting again after a right password', async () => {
    for (let index = 0; index < 9; index += 1) expect((await signIn('person@example.com', `wrong ${index}`)).statusCode).toBe(200);
    expect((await signIn('person@example.com', PASSWORD)).json()).toEqual({ ok: true });
    for (let index = 0; index < 10; index += 1) expect((await signIn('person@example.com', `wrong again ${index}`)).json()).toMatchObject({ ok: false });
  });

  it('keep digests of the email and address only', async () => {
    await signIn('someone.else@example.com', 'a guess');
    const rows = await gateway.services.db.query<{ scope: string; subject_hash: Uint8Array }>('SELECT scope, subject_hash FROM sign_in_attempt_windows ORDER BY scope');
    const digests = rows.rows.map((row) => Buffer.from(row.subject_hash).toString('hex'));
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(digests).toContain(sha('someone.else@example.com|127.0.0.1'));
    expect(digests).toContain(sha('127.0.0.1'));
    expect(rows.rows.every((row) => !Buffer.from(row.subject_hash).toString('latin1').includes('example.com'))).toBe(true);
  });
});
