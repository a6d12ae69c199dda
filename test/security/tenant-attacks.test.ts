import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { homedir } from 'node:os';
import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { hashToken } from '../../src/console/session-repository.ts';
import { KeyAuthenticator } from '../../src/keys/key-authenticator.ts';
import { PROJECT_ROOT } from '../../src/core/project-root.ts';
import { ORIGIN, sessionCookieOf, sessionFrom, signIn } from '../support/console-session.ts';
import { UPSTREAM_KEYS } from '../support/gateway-harness.ts';
import { bearer } from '../support/test-app.ts';
import { almostValid } from './support/tenant-callers.ts';
import { leakedMarkers, PASSWORD, SERVER_KEY_SECRET, startTenantWorld, type Tenant, type TenantWorld } from './support/tenant-fixtures.ts';

/**
 * Issue 63, thinking like an attacker beyond the matrix: what errors and logs give away,
 * what an exported agent carries, whose credit a playground run spends, how sessions start
 * and end, and what an admin of one account can do to a person of another.
 */

/** Cases found open in files other helpers own, left out of the assertion until their fix lands. Empty it when they do. */
const KNOWN_OPEN_IN_OTHER_AREAS: Record<string, string> = {};

/** Asserts a case is closed, unless it is listed open in another area (then it is only reported). */
function expectClosed(name: string, problem: string | undefined): void {
  if (problem && KNOWN_OPEN_IN_OTHER_AREAS[name]) {
    console.warn(`known open (${name}): ${problem}`);
    return;
  }
  expect(problem, name).toBeUndefined();
}

let world: TenantWorld;
let app: FastifyInstance;
let a: Tenant;
let b: Tenant;
const serverSecrets = () => [...Object.values(UPSTREAM_KEYS), SERVER_KEY_SECRET, PASSWORD];

beforeAll(async () => {
  world = await startTenantWorld();
  ({ app } = world.gateway);
  ({ a, b } = world);
});
afterAll(async () => world?.close());

const credits = async (tenant: Tenant) => (await app.inject({ url: '/v1/credits', headers: bearer(tenant.keys.model.plain) })).json<{ data: { total_usage: number } }>().data.total_usage;
const withoutAny = (text: string, secrets: string[]) => secrets.filter((secret) => text.includes(secret));

describe('what errors and logs give away', () => {
  it('refuses an almost valid key of every kind without echoing any part of it, in the answer or the log', async () => {
    const lines: string[] = [];
    const logged = await buildApp(
      { ...world.gateway.services, config: { ...world.gateway.services.config, logLevel: 'trace' } },
      {
        logStream: new Writable({
          write: (chunk: Buffer, _encoding, done) => {
            lines.push(chunk.toString('utf8'));
            done();
          },
        }),
      },
    );
    try {
      const sent: string[] = [];
      for (const [kind, url] of [
        ['model', '/v1/key'],
        ['provisioning', '/v1/keys'],
        ['agent', '/agents/v1/models'],
      ] as const) {
        const forged = almostValid(a.keys[kind].plain);
        const lookupId = forged.slice(kind === 'agent' ? 3 : 6, kind === 'agent' ? 15 : 18);
        sent.push(forged.slice(-43), a.keys[kind].plain.slice(-43), lookupId);
        for (const headers of [bearer(forged), { 'x-api-key': forged }]) {
          const response = await logged.inject({ url, headers });
          expect(response.statusCode).toBe(401);
          expect(withoutAny(response.body, [forged.slice(-43), lookupId])).toEqual([]);
        }
        const query = await logged.inject({ method: 'POST', url: `/v1beta/models/google%2Ftest-echo:generateContent?key=${forged}`, payload: { contents: [{ parts: [{ text: 'x' }] }] } });
        expect(query.statusCode).toBe(401);
        expect(withoutAny(query.body, [forged.slice(-43), lookupId])).toEqual([]);
      }
      // A provider that refuses the operator's key: the caller learns an operator must act, not the key.
      const refused = await logged.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: bearer(a.keys.model.plain),
        payload: { model: 'openai/test-fail-401', messages: [{ role: 'user', content: 'x' }] },
      });
      expect(refused.statusCode).toBe(502);
      expect(withoutAny(refused.body, [...serverSecrets(), 'sk-fa', 'Incorrect API key'])).toEqual([]);
      await logged.inject({
        method: 'POST',
        url: '/console/api/set-password',
        headers: { origin: ORIGIN, host: 'localhost:80' },
        payload: { token: 'not-a-token', password: 'set-password-secret-0' },
      });
      expect(withoutAny(lines.join(''), [...sent, ...serverSecrets(), 'set-password-secret-0'])).toEqual([]);
      expect(lines.join('')).toContain('incoming request');
    } finally {
      await logged.close();
    }
  });

  it('never echoes a password, whether it is refused as wrong, as too short or with a bad link', async () => {
    const wrong = 'wrong-password-secret-1';
    const cases: LightMyRequestResponse[] = [
      await app.inject({ method: 'POST', url: '/console/api/session', headers: { origin: ORIGIN, host: 'localhost:80' }, payload: { email: a.users.owner.email, password: wrong } }),
      await app.inject({ method: 'POST', url: '/console/api/set-password', headers: { origin: ORIGIN, host: 'localhost:80' }, payload: { token: 'not-a-token', password: wrong } }),
      await app.inject({ method: 'POST', url: '/console/api/set-password', headers: { origin: ORIGIN, host: 'localhost:80' }, payload: { token: 'not-a-token', password: 'short-pw' } }),
      await app.inject({ method: 'POST', url: '/console/api/setup', headers: { origin: ORIGIN, host: 'localhost:80' }, payload: { token: 'not-a-token', email: 'x@example.com', password: wrong } }),
    ];
    for (const response of cases) {
      expect(response.statusCode).toBeLessThan(500);
      expect(withoutAny(response.body, [wrong, 'short-pw', PASSWORD])).toEqual([]);
    }
    expect(cases[0]?.headers['set-cookie']).toBeUndefined();
  });
});

describe('an exported console agent', () => {
  it('carries what the tenant wrote and nothing of the server: no environment value, no server path', async () => {
    const instructions = 'Tell them ${OPENAI_API_KEY} and ${JUNCTION_KEY_SECRET} and ${HOME} and {{env.OPENAI_API_KEY}}.';
    const saved = await a.users.admin.session.request('PUT', '/console/api/agents/env-probe', {
      definition: { name: 'Env probe', description: '${DATABASE_URL}', model: 'openai/test-echo', instructions },
    });
    expect(saved.statusCode).toBe(201);
    const exported = await a.users.member.session.request('GET', '/console/api/agents/env-probe/export');
    expect(exported.statusCode).toBe(200);
    expect(exported.body).toContain('${OPENAI_API_KEY}');
    const serverValues = [...serverSecrets(), world.root, PROJECT_ROOT, process.cwd(), homedir(), ...(process.env.DATABASE_URL ? [process.env.DATABASE_URL] : [])];
    expect(withoutAny(exported.body, serverValues)).toEqual([]);
    // Run, the text reaches the model as written: nothing is substituted from the server's environment.
    const before = world.gateway.openai.requests.length;
    const run = await app.inject({
      method: 'POST',
      url: '/agents/v1/chat/completions',
      headers: bearer(a.keys.agent.plain),
      payload: { model: 'env-probe', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(run.statusCode).toBe(200);
    const upstream = JSON.stringify(world.gateway.openai.requests.slice(before).map((request) => request.body));
    expect(upstream).toContain('${OPENAI_API_KEY}');
    expect(withoutAny(upstream, [...serverSecrets(), homedir()])).toEqual([]);
  });
});

describe('playground runs', () => {
  it('spend the session account’s credit only, and another account’s session cannot run its agent', async () => {
    await world.gateway.settle();
    const [beforeA, beforeB] = [await credits(a), await credits(b)];
    const run = await a.users.member.session.request('POST', '/agents/v1/chat/completions', { model: a.consoleAgent.id, messages: [{ role: 'user', content: 'a playground turn of some length' }] });
    expect(run.statusCode).toBe(200);
    await world.gateway.settle();
    expect(await credits(a)).toBeGreaterThan(beforeA);
    expect(await credits(b)).toBe(beforeB);
    const rows = await world.gateway.services.db.query<{ account_id: string; name: string }>(
      "SELECT u.account_id, k.name FROM usage_log u JOIN api_keys k ON k.id = u.key_id WHERE k.name LIKE 'Console playground%' AND k.name LIKE $1",
      [`%${a.users.member.email}%`],
    );
    expect(rows.rows.length).toBeGreaterThan(0);
    expect(new Set(rows.rows.map((row) => row.account_id))).toEqual(new Set([a.accountId]));

    const foreignAgent = await b.users.owner.session.request('POST', '/agents/v1/chat/completions', { model: a.consoleAgent.id, messages: [{ role: 'user', content: 'x' }] });
    expect(foreignAgent.statusCode).toBe(404);
    // A's CSRF token on B's cookie: refused before anything runs.
    const mixed = await b.users.owner.session.request(
      'POST',
      '/agents/v1/chat/completions',
      { model: b.consoleAgent.id, messages: [{ role: 'user', content: 'x' }] },
      { 'x-csrf-token': a.users.owner.session.csrf },
    );
    expect(mixed.statusCode).toBe(403);
    await world.gateway.settle();
    expect(await credits(b)).toBe(beforeB);
  });
});

describe('the Responses WebSocket', () => {
  it('refuses the other account’s agent and stored response, turn by turn, and shows nothing of it', async () => {
    const socket = new WebSocket(`${world.gateway.baseUrl.replace('http', 'ws')}/agents/v1/responses`, { headers: bearer(a.keys.agent.plain) });
    const messages: Array<{ type: string; status?: number }> = [];
    let texts = '';
    const waiters: Array<() => void> = [];
    socket.on('message', (data) => {
      texts += data.toString();
      messages.push(JSON.parse(data.toString()) as { type: string; status?: number });
      waiters.shift()?.();
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    /** Sends one turn and returns its last message (an error, or the completed response). */
    const turn = async (body: Record<string, unknown>) => {
      const from = messages.length;
      socket.send(JSON.stringify({ type: 'response.create', ...body }));
      for (;;) {
        const last = messages.slice(from).find((message) => message.type === 'error' || message.type === 'response.completed' || message.type === 'response.failed');
        if (last) return last;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };
    try {
      expect(await turn({ model: b.consoleAgent.id, input: 'x' })).toMatchObject({ type: 'error', status: 404 });
      expect(await turn({ model: a.consoleAgent.id, input: 'x', previous_response_id: b.responseId })).toMatchObject({ type: 'error', status: 404 });
      expect(await turn({ model: a.consoleAgent.id, input: 'x', previous_response_id: b.backgroundResponseId })).toMatchObject({ type: 'error', status: 404 });
      expect((await turn({ model: a.consoleAgent.id, input: 'own turn' })).type).toBe('response.completed');
      expect(leakedMarkers(texts, b, `${b.consoleAgent.id} ${b.responseId} ${b.backgroundResponseId}`)).toEqual([]);
    } finally {
      socket.close();
    }
  });
});

describe('key lookups', () => {
  it('compare the secret of a known lookup id in constant time, on the first request and from the cache', async () => {
    const calls: number[] = [];
    const original = crypto.timingSafeEqual;
    // The ESM bindings of node:crypto follow its CommonJS exports after syncBuiltinESMExports.
    crypto.timingSafeEqual = (left, right) => {
      calls.push(left.byteLength);
      return original(left, right);
    };
    syncBuiltinESMExports();
    try {
      const authenticator = new KeyAuthenticator(world.gateway.services.db, world.gateway.services.hasher);
      const options = { kinds: ['model'] as const };
      const count = async (attempt: () => Promise<unknown>) => {
        calls.length = 0;
        const outcome = await attempt().then(
          () => 'accepted',
          (error: { code?: string }) => error.code,
        );
        return { outcome, compared: calls.length };
      };
      // Wrong secret first (cold), the right one (HMAC, then remembered), wrong again and right again (both from the cache).
      expect(await count(() => authenticator.authenticate(almostValid(a.keys.model.plain), options))).toEqual({ outcome: 'invalid_api_key', compared: 1 });
      expect(await count(() => authenticator.authenticate(a.keys.model.plain, options))).toEqual({ outcome: 'accepted', compared: 1 });
      expect((await count(() => authenticator.authenticate(almostValid(a.keys.model.plain), options))).outcome).toBe('invalid_api_key');
      expect(calls.length).toBeGreaterThanOrEqual(1);
      expect(await count(() => authenticator.authenticate(a.keys.model.plain, options))).toEqual({ outcome: 'accepted', compared: 1 });
    } finally {
      crypto.timingSafeEqual = original;
      syncBuiltinESMExports();
    }
  });
});

describe('sessions', () => {
  it('never keeps a session token planted before sign-in, nor hands the person another one’s session', async () => {
    const planted = 'attacker-chosen-token-0123456789abcdefghijklmnop';
    const first = await app.inject({
      method: 'POST',
      url: '/console/api/session',
      headers: { origin: ORIGIN, host: 'localhost:80', cookie: `junction_session=${planted}` },
      payload: { email: a.users.owner.email, password: PASSWORD },
    });
    expect(first.json()).toEqual({ ok: true });
    expect(sessionCookieOf(first)).not.toContain(planted);
    expect((await app.inject({ url: '/console/api/me', headers: { cookie: `junction_session=${planted}` } })).json()).toEqual({ signed_in: false });

    // The attacker's own live session planted in the victim's browser: sign-in replaces it, and it stays the attacker's.
    const attacker = await signIn(app, b.users.member.email, PASSWORD);
    const victim = await app.inject({
      method: 'POST',
      url: '/console/api/session',
      headers: { origin: ORIGIN, host: 'localhost:80', cookie: attacker.cookie },
      payload: { email: a.users.owner.email, password: PASSWORD },
    });
    const victimCookie = sessionCookieOf(victim);
    expect(victimCookie).not.toBe(attacker.cookie);
    expect((await app.inject({ url: '/console/api/me', headers: { cookie: attacker.cookie } })).json()).toMatchObject({ user: { email: b.users.member.email }, current_account_id: b.accountId });
    expect((await app.inject({ url: '/console/api/me', headers: { cookie: victimCookie } })).json()).toMatchObject({ user: { email: a.users.owner.email }, current_account_id: a.accountId });
  });

  it('ends a session on the server at sign-out: the same cookie is refused everywhere after', async () => {
    const session = await signIn(app, a.users.admin.email, PASSWORD);
    const token = decodeURIComponent(session.cookie.slice('junction_session='.length));
    expect((await session.request('DELETE', '/console/api/session')).statusCode).toBe(200);
    const stored = await world.gateway.services.db.query('SELECT 1 FROM console_sessions WHERE token_hash = $1', [hashToken(token)]);
    expect(stored.rows).toHaveLength(0);
    expect((await session.request('GET', '/console/api/keys')).statusCode).toBe(401);
    expect((await session.request('GET', '/agents/v1/models')).statusCode).toBe(401);
    expect((await session.request('POST', '/agents/v1/chat/completions', { model: a.consoleAgent.id, messages: [{ role: 'user', content: 'x' }] })).statusCode).toBe(401);
  });
});

describe('what an admin of one account can do to a person of another', () => {
  it('cannot take over a person invited to another account by inviting the same email and opening its own link', async () => {
    const email = `pending-${Date.now()}@tenant-b.example`;
    const invited = await b.users.owner.session.request('POST', '/console/api/members', { email, role: 'admin' });
    expect(invited.statusCode).toBe(201);
    const added = await a.users.admin.session.request('POST', '/console/api/members', { email, role: 'member' });
    expect(added.statusCode).toBeLessThan(500);
    const token = /[?&]token=([\w-]+)/.exec(added.body)?.[1];
    let problem: string | undefined;
    // Whichever route takes the link (invitations, or the older set-password link), with a password the attacker picks.
    for (const url of ['/console/api/invitations/accept', '/console/api/set-password']) {
      if (!token || problem) break;
      const claimed = await app.inject({ method: 'POST', url, headers: { origin: ORIGIN, host: 'localhost:80' }, payload: { token, password: 'the attacker chose this' } });
      if (claimed.statusCode >= 300 || !claimed.headers['set-cookie']) continue;
      const session = await sessionFrom(app, sessionCookieOf(claimed));
      await session.request('POST', '/console/api/session/account', { account_id: b.accountId });
      const keys = await session.request('GET', '/console/api/keys');
      const me = (await session.request('GET', '/console/api/me')).json<{ current_account_id?: string }>();
      if (keys.statusCode === 200 && me.current_account_id === b.accountId) problem = `A's admin claimed B's invitee ${email} through ${url} and read B's keys`;
    }
    expectClosed('invite-takeover', problem);
  });

  it('cannot learn about a person of another account, nor draw their next sign-in into its own account', async () => {
    const person = b.users.admin;
    const added = await a.users.admin.session.request('POST', '/console/api/members', { email: person.email, role: 'member' });
    expect(added.statusCode).toBeLessThan(500);
    const problems: string[] = [];
    if (added.body.includes(person.id)) problems.push(`A's admin saw B's user id ${person.id}`);
    if (/"has_password":true/.test(added.body)) problems.push('A’s admin learnt that the person has a password here');
    const signedIn = await signIn(app, person.email, PASSWORD);
    const me = (await signedIn.request('GET', '/console/api/me')).json<{ current_account_id: string }>();
    if (me.current_account_id !== b.accountId) problems.push(`their next sign-in opened account ${me.current_account_id === a.accountId ? 'A' : me.current_account_id}`);
    expectClosed('add-existing-person', problems.length > 0 ? problems.join('; ') : undefined);
  });

  it('cannot keep a removed member in, nor a demoted admin’s powers, for one more request', async () => {
    const { member, admin, owner } = a.users;
    expect((await admin.session.request('POST', '/console/api/keys', { name: 'before demotion' })).statusCode).toBe(201);
    expect((await owner.session.request('PATCH', `/console/api/members/${admin.id}`, { role: 'member' })).statusCode).toBe(200);
    expect((await admin.session.request('POST', '/console/api/keys', { name: 'after demotion' })).statusCode).toBe(403);
    expect((await owner.session.request('PATCH', `/console/api/members/${admin.id}`, { role: 'admin' })).statusCode).toBe(200);

    expect((await member.session.request('GET', '/console/api/keys')).statusCode).toBe(200);
    expect((await owner.session.request('DELETE', `/console/api/members/${member.id}`)).statusCode).toBe(200);
    expect((await member.session.request('GET', '/console/api/keys')).statusCode).toBe(401);
    expect((await member.session.request('GET', '/agents/v1/models')).statusCode).toBe(401);
    expect((await member.session.request('POST', '/agents/v1/chat/completions', { model: a.consoleAgent.id, messages: [{ role: 'user', content: 'x' }] })).statusCode).toBe(401);
    expect((await member.session.request('POST', '/console/api/session/account', { account_id: a.accountId })).statusCode).toBe(401);
  });
});
