import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../../src/admin/admin-commands.ts';
import { issueSetupLink } from '../../../src/console/session-routes.ts';
import { startGateway, type GatewayHarness } from '../../support/gateway-harness.ts';
import { bearer } from '../../support/test-app.ts';
import { ORIGIN, type ConsoleSession, sessionCookieOf, sessionFrom, signIn } from '../../support/console-session.ts';

/** The console's JSON API: sign-in, CSRF, roles, keys of every kind, usage, overview, isolation between accounts. */
let gateway: GatewayHarness;
let owner: ConsoleSession;
let otherAccountId: string;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  const fixtures = join(import.meta.dirname, '../../fixtures/agents-e2e');
  gateway = await startGateway({ JUNCTION_AGENTS_DIR: join(fixtures, 'agents'), JUNCTION_TOOLS_DIR: join(fixtures, 'tools'), JUNCTION_KNOWLEDGE_DIR: '/nonexistent' });
  await runAdminCommand(gateway.services, { command: 'credits.grant', amount: '20', currency: 'USD' });
  const other = (await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'other' })) as { data: { id: string } };
  otherAccountId = other.data.id;
});
afterAll(async () => gateway?.close());

describe('first start', () => {
  it('creates the owner through the one-time setup link, once', async () => {
    const link = await issueSetupLink(gateway.services.db, 'http://localhost', new Date());
    const token = new URL(link as string).searchParams.get('token') as string;
    expect((await gateway.app.inject({ url: '/console/api/setup' })).json()).toEqual({ needs_setup: true });
    const setup = await gateway.app.inject({
      method: 'POST',
      url: '/console/api/setup',
      headers: { origin: ORIGIN, host: 'localhost:80' },
      payload: { token, email: 'Owner@Example.com', password: PASSWORD },
    });
    expect(setup.statusCode).toBe(201);
    expect(String(setup.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Lax/);
    const again = await gateway.app.inject({
      method: 'POST',
      url: '/console/api/setup',
      headers: { origin: ORIGIN, host: 'localhost:80' },
      payload: { token, email: 'x@example.com', password: PASSWORD },
    });
    expect(again.statusCode).toBe(403);
    owner = await sessionFrom(gateway.app, sessionCookieOf(setup));
    const me = await owner.request('GET', '/console/api/me');
    expect(me.json()).toMatchObject({ user: { email: 'owner@example.com' }, role: 'owner', current_account_id: gateway.services.defaultAccount.id });
    const stored = await gateway.services.db.query<{ password_hash: string }>('SELECT password_hash FROM users');
    expect(stored.rows[0]?.password_hash).toMatch(/^scrypt\$/);
    expect(stored.rows[0]?.password_hash).not.toContain(PASSWORD);
  });
});

describe('sign-in', () => {
  it('refuses a wrong password without a session, and signs in with the right one', async () => {
    const wrong = await gateway.app.inject({
      method: 'POST',
      url: '/console/api/session',
      headers: { origin: ORIGIN, host: 'localhost:80' },
      payload: { email: 'owner@example.com', password: 'wrong password!' },
    });
    // A form error, not a failed request: 200 with ok false, and no session.
    expect(wrong.statusCode).toBe(200);
    expect(wrong.json()).toEqual({ ok: false, message: 'The email or password is wrong.' });
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const session = await signIn(gateway.app, 'owner@example.com', PASSWORD);
    expect((await session.request('GET', '/console/api/me')).statusCode).toBe(200);
  });

  it('refuses mutating requests from a foreign origin or without the CSRF token', async () => {
    const foreign = await owner.request('POST', '/console/api/keys', { name: 'x' }, { origin: 'https://evil.example' });
    expect(foreign.statusCode).toBe(403);
    const noToken = await owner.request('POST', '/console/api/keys', { name: 'x' }, { 'x-csrf-token': '' });
    expect(noToken.statusCode).toBe(403);
    const crossSite = await gateway.app.inject({
      method: 'POST',
      url: '/console/api/keys',
      headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrf, 'sec-fetch-site': 'cross-site' },
      payload: { name: 'x' },
    });
    expect(crossSite.statusCode).toBe(403);
    expect((await owner.request('GET', '/console/api/keys')).json<{ data: unknown[] }>().data).toHaveLength(0);
  });

  it('reports signed out without a session and after sign-out, and refuses the API with 401', async () => {
    expect((await gateway.app.inject({ url: '/console/api/me' })).json()).toEqual({ signed_in: false });
    expect((await gateway.app.inject({ url: '/console/api/keys' })).statusCode).toBe(401);
    const session = await signIn(gateway.app, 'owner@example.com', PASSWORD);
    expect((await session.request('DELETE', '/console/api/session')).statusCode).toBe(200);
    expect((await session.request('GET', '/console/api/me')).json()).toEqual({ signed_in: false });
    expect((await session.request('GET', '/console/api/keys')).statusCode).toBe(401);
  });

  it('rate-limits repeated wrong passwords for one email', async () => {
    const attempt = () =>
      gateway.app.inject({ method: 'POST', url: '/console/api/session', headers: { origin: ORIGIN, host: 'localhost:80' }, payload: { email: 'victim@example.com', password: 'guess guess guess' } });
    const statuses: number[] = [];
    for (let index = 0; index < 12; index += 1) statuses.push((await attempt()).statusCode);
    expect(statuses.slice(0, 10).every((status) => status === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('keys made in the console work against the API', () => {
  it('model key: created with limits, shown once, calls chat, appears in usage and overview, edited and deleted', async () => {
    const created = await owner.request('POST', '/console/api/keys', { name: 'web app', daily_limit_usd: 5, rate_limit_rpm: 100 });
    expect(created.statusCode).toBe(201);
    const { key, data } = created.json<{ key: string; data: { id: string; daily_limit_usd: number } }>();
    expect(key).toMatch(/^sk-jn-/);
    expect(data.daily_limit_usd).toBe(5);
    const chat = await gateway.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(key),
      payload: { model: 'openai/test-echo', messages: [{ role: 'user', content: 'console made me' }] },
    });
    expect(chat.statusCode).toBe(200);

    const usage = await owner.request('GET', `/console/api/usage?key_id=${data.id}`);
    const rows = usage.json<{ data: Array<{ key_name: string; cost_usd: number; status: string }> }>().data;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ key_name: 'web app', status: 'success' });
    const csv = await owner.request('GET', `/console/api/usage.csv?key_id=${data.id}`);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    expect(csv.body.split('\n')[1]).toContain('web app');

    const overview = (await owner.request('GET', '/console/api/overview')).json<{
      spend_today_usd: number;
      spend_by_key: Array<{ name: string; spend_usd: number }>;
      requests: Array<{ requests: number }>;
    }>();
    expect(overview.spend_today_usd).toBeCloseTo(rows[0]?.cost_usd ?? 0, 6);
    expect(overview.spend_by_key.find((point) => point.name === 'web app')?.spend_usd).toBeCloseTo(rows[0]?.cost_usd ?? 0, 6);

    const edited = await owner.request('PATCH', `/console/api/keys/${data.id}`, { daily_limit_usd: null, disabled: true });
    expect(edited.json<{ data: { daily_limit_usd: null; disabled: boolean } }>().data).toMatchObject({ daily_limit_usd: null, disabled: true });
    const refused = await gateway.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(key), payload: { model: 'openai/test-echo', messages: [{ role: 'user', content: 'x' }] } });
    expect(refused.statusCode).toBe(401);
    expect((await owner.request('DELETE', `/console/api/keys/${data.id}`)).statusCode).toBe(200);
  });

  it('provisioning key manages /v1/keys; agent key lists agents; both revocable', async () => {
    const provisioning = (await owner.request('POST', '/console/api/provisioning-keys', { name: 'ci' })).json<{ key: string; data: { id: string } }>();
    expect(provisioning.key).toMatch(/^pk-jn-/);
    expect((await gateway.app.inject({ url: '/v1/keys', headers: bearer(provisioning.key) })).statusCode).toBe(200);
    const agent = (await owner.request('POST', '/console/api/agent-keys', { name: 'bot', expires_at: new Date(Date.now() + 86_400_000).toISOString() })).json<{ key: string; data: { id: string } }>();
    expect(agent.key).toMatch(/^sk-/);
    expect((await gateway.app.inject({ url: '/agents/v1/models', headers: bearer(agent.key) })).statusCode).toBe(200);
    // A revoke on the wrong kind's route does not touch the key.
    expect((await owner.request('DELETE', `/console/api/agent-keys/${provisioning.data.id}`)).statusCode).toBe(404);
    expect((await owner.request('DELETE', `/console/api/provisioning-keys/${provisioning.data.id}`)).statusCode).toBe(200);
    expect((await owner.request('DELETE', `/console/api/agent-keys/${agent.data.id}`)).statusCode).toBe(200);
    expect((await gateway.app.inject({ url: '/v1/keys', headers: bearer(provisioning.key) })).statusCode).toBe(401);
    expect((await gateway.app.inject({ url: '/agents/v1/models', headers: bearer(agent.key) })).statusCode).toBe(401);
  });

  it('lists the plan’s models and the account’s agents', async () => {
    const models = (await owner.request('GET', '/console/api/models')).json<{ data: Array<{ id: string }> }>().data;
    expect(models.map((model) => model.id)).toContain('openai/test-echo');
    const agents = (await owner.request('GET', '/console/api/agents')).json<{ data: Array<{ id: string; source: string }> }>().data;
    expect(agents.map((agent) => agent.id)).toContain('echo');
  });
});

describe('members, roles and accounts', () => {
  it('an invited member sets a password through the invite link, reads, but cannot manage keys', async () => {
    const added = await owner.request('POST', '/console/api/members', { email: 'member@example.com', role: 'member' });
    expect(added.statusCode).toBe(201);
    const link = added.json<{ invite_url: string }>().invite_url;
    expect(new URL(link).pathname).toBe('/invite');
    const token = new URL(link).searchParams.get('token') as string;
    const set = await gateway.app.inject({
      method: 'POST',
      url: '/console/api/invitations/accept',
      headers: { origin: ORIGIN, host: 'localhost:80' },
      payload: { token, password: 'member password 1' },
    });
    expect(set.statusCode).toBe(201);
    const reused = await gateway.app.inject({
      method: 'POST',
      url: '/console/api/invitations/accept',
      headers: { origin: ORIGIN, host: 'localhost:80' },
      payload: { token, password: 'member password 2' },
    });
    expect(reused.statusCode).toBe(404);
    const member = await sessionFrom(gateway.app, sessionCookieOf(set));
    expect((await member.request('GET', '/console/api/keys')).statusCode).toBe(200);
    expect((await member.request('POST', '/console/api/keys', { name: 'nope' })).statusCode).toBe(403);
    expect((await member.request('POST', '/console/api/members', { email: 'x@example.com', role: 'owner' })).statusCode).toBe(403);
  });

  it('a user of two accounts switches and sees nothing of the other', async () => {
    await runAdminCommand(gateway.services, { command: 'users.create', email: 'owner@example.com', password: PASSWORD, account: otherAccountId, role: 'owner' });
    const session = await signIn(gateway.app, 'owner@example.com', PASSWORD);
    await session.request('POST', '/console/api/keys', { name: 'default-only key' });
    const me = (await session.request('GET', '/console/api/me')).json<{ accounts: Array<{ account_id: string }> }>();
    expect(me.accounts.map((account) => account.account_id)).toContain(otherAccountId);
    expect((await session.request('POST', '/console/api/session/account', { account_id: otherAccountId })).statusCode).toBe(200);
    const keys = (await session.request('GET', '/console/api/keys')).json<{ data: Array<{ name: string }> }>().data;
    expect(keys.map((key) => key.name)).not.toContain('default-only key');
    expect((await session.request('GET', '/console/api/usage')).json<{ data: unknown[] }>().data).toHaveLength(0);
    expect((await session.request('GET', '/console/api/members')).json<{ data: Array<{ email: string }> }>().data.map((row) => row.email)).toEqual(['owner@example.com']);
    const stranger = (await runAdminCommand(gateway.services, { command: 'accounts.create', name: 'stranger' })) as { data: { id: string } };
    expect((await session.request('POST', '/console/api/session/account', { account_id: stranger.data.id })).statusCode).toBe(404);
  });
});

describe('npx junction users create', () => {
  it('creates a user from a password on stdin and never prints it', async () => {
    const run = promisify(execFile);
    const child = run(process.execPath, [join(import.meta.dirname, '../../../bin/junction.js'), 'users', 'create', '--email', 'cli@example.com', '--password-stdin', '--role', 'admin', '--json'], {
      env: { ...process.env, ...gateway.env, ...(gateway.config.databaseUrl ? { DATABASE_URL: gateway.config.databaseUrl } : { JUNCTION_DATA_DIR: 'memory://' }) },
      timeout: 60_000,
    });
    child.child.stdin?.end('a long cli password\n');
    const outcome = await child.then(
      (result) => result,
      (error: { stdout: string; stderr: string }) => error,
    );
    if (!gateway.config.databaseUrl) {
      // The embedded in-memory store of this test is private to its process: the CLI refuses it.
      expect(outcome.stderr).toMatch(/memory:\/\//);
      return;
    }
    expect(JSON.parse(outcome.stdout)).toMatchObject({ data: { email: 'cli@example.com', role: 'admin' } });
    expect(outcome.stdout).not.toContain('a long cli password');
    const session = await signIn(gateway.app, 'cli@example.com', 'a long cli password');
    expect((await session.request('GET', '/console/api/me')).json()).toMatchObject({ role: 'admin' });
  });
});
