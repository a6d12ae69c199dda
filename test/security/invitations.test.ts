import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/admin-commands.ts';
import { hashToken } from '../../src/console/session-repository.ts';
import { type ConsoleSession, ORIGIN, sessionCookieOf, sessionFrom, signIn } from '../support/console-session.ts';
import { engineName } from '../support/test-database.ts';
import { startTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Issue 63, item 7, and what an attacker does with members and invite links: an
 * invitation belongs to the account that made it, a link grants that account only, and
 * no link of account B ever yields a sign-in that reaches account A.
 */
let harness: TestApp;
let ownerA: ConsoleSession;
let adminB: ConsoleSession;
let accountA: string;
let accountB: string;
const PASSWORD = 'correct horse battery';

type Invited = { data: { id: string; email: string; role: string }; invite_url: string };
const tokenOf = (response: LightMyRequestResponse): string => new URL(response.json<Invited>().invite_url).searchParams.get('token') as string;

/** The invite page's calls, made by someone holding only the link (no session). */
const anonymous = (url: string, payload: object, cookie?: string) =>
  harness.app.inject({ method: 'POST', url: `/console/api${url}`, headers: { origin: ORIGIN, host: 'localhost:80', ...(cookie && { cookie }) }, payload });

beforeAll(async () => {
  harness = await startTestApp();
  accountA = harness.services.defaultAccount.id;
  accountB = ((await runAdminCommand(harness.services, { command: 'accounts.create', name: 'team b' })) as { data: { id: string } }).data.id;
  await runAdminCommand(harness.services, { command: 'users.create', email: 'owner-a@example.com', password: PASSWORD, role: 'owner' });
  await runAdminCommand(harness.services, { command: 'users.create', email: 'admin-b@example.com', password: PASSWORD, account: accountB, role: 'admin' });
  await runAdminCommand(harness.services, { command: 'users.create', email: 'admin-a@example.com', password: PASSWORD, role: 'admin' });
  ownerA = await signIn(harness.app, 'owner-a@example.com', PASSWORD);
  adminB = await signIn(harness.app, 'admin-b@example.com', PASSWORD);
});
afterAll(async () => harness?.close());

describe(`invitations (${engineName()})`, () => {
  it('item 7: the admin of B gets no credentials for a person A invited, and no path to A', async () => {
    const fromA = await ownerA.request('POST', '/console/api/members', { email: 'pending@x.test', role: 'admin' });
    expect(fromA.statusCode).toBe(201);
    const tokenA = tokenOf(fromA);

    const fromB = await adminB.request('POST', '/console/api/members', { email: 'pending@x.test', role: 'member' });
    expect(fromB.statusCode).toBe(201);
    expect(fromB.json()).not.toHaveProperty('set_password_url');
    const tokenB = tokenOf(fromB);
    // Inviting made no user and no membership anywhere.
    expect((await harness.services.db.query("SELECT 1 FROM users WHERE email = 'pending@x.test'")).rows).toHaveLength(0);

    // B's link cannot set a password: the person was invited by A first.
    expect((await anonymous('/invitations/preview', { token: tokenB })).json()).toMatchObject({ email: 'pending@x.test', new_person: false });
    const claim = await anonymous('/invitations/accept', { token: tokenB, password: 'chosen by admin b' });
    expect(claim.statusCode).toBe(409);
    expect(claim.headers['set-cookie']).toBeUndefined();
    expect((await anonymous('/set-password', { token: tokenB, password: 'chosen by admin b' })).statusCode).toBe(403);
    expect((await anonymous('/session', { email: 'pending@x.test', password: 'chosen by admin b' })).json()).toMatchObject({ ok: false });
    expect((await adminB.request('POST', '/console/api/session/account', { account_id: accountA })).statusCode).toBe(404);
    expect((await adminB.request('GET', '/console/api/invitations')).json<{ data: Array<{ email: string }> }>().data.map((row) => row.email)).toEqual(['pending@x.test']);

    // The person opens A's link: a password, a session on A and nothing else.
    const joined = await anonymous('/invitations/accept', { token: tokenA, password: 'the real person' });
    expect(joined.statusCode).toBe(201);
    const person = await sessionFrom(harness.app, sessionCookieOf(joined));
    const me = (await person.request('GET', '/console/api/me')).json<{ accounts: Array<{ account_id: string }>; role: string; current_account_id: string }>();
    expect(me.accounts.map((account) => account.account_id)).toEqual([accountA]);
    expect(me).toMatchObject({ role: 'admin', current_account_id: accountA });

    // B's link now works only for the person, signed in as themselves.
    expect((await anonymous('/invitations/accept', { token: tokenB, password: 'chosen by admin b' })).statusCode).toBe(409);
    const accepted = await person.request('POST', '/console/api/invitations/accept', { token: tokenB });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toEqual({ ok: true, account_id: accountB });
    const members = (await adminB.request('GET', '/console/api/members')).json<{ data: Array<{ email: string; role: string }> }>().data;
    expect(members).toContainEqual(expect.objectContaining({ email: 'pending@x.test', role: 'member' }));
  });

  it('a person added before invitations (no password, a member of A) cannot be claimed by B', async () => {
    const user = await harness.services.db.query<{ id: string }>("INSERT INTO users (email) VALUES ('legacy@x.test') RETURNING id");
    const userId = user.rows[0]?.id as string;
    await harness.services.db.query("INSERT INTO memberships (user_id, account_id, role) VALUES ($1, $2, 'admin')", [userId, accountA]);

    const fromB = await adminB.request('POST', '/console/api/invitations', { email: 'legacy@x.test', role: 'member' });
    expect((await anonymous('/invitations/preview', { token: tokenOf(fromB) })).json()).toMatchObject({ new_person: false });
    const claim = await anonymous('/invitations/accept', { token: tokenOf(fromB), password: 'chosen by admin b' });
    expect(claim.statusCode).toBe(409);
    expect((await harness.services.db.query('SELECT password_hash FROM users WHERE id = $1', [userId])).rows[0]).toEqual({ password_hash: null });

    // Only an owner may re-invite a passwordless owner (the link sets their role).
    await harness.services.db.query("UPDATE memberships SET role = 'owner' WHERE user_id = $1", [userId]);
    const adminA = await signIn(harness.app, 'admin-a@example.com', PASSWORD);
    expect((await adminA.request('POST', '/console/api/invitations', { email: 'legacy@x.test', role: 'member' })).statusCode).toBe(403);
    await harness.services.db.query("UPDATE memberships SET role = 'admin' WHERE user_id = $1", [userId]);

    // A's own new invitation completes them, into A only, with the role it names.
    const again = await ownerA.request('POST', '/console/api/invitations', { email: 'legacy@x.test', role: 'member' });
    expect(again.statusCode).toBe(201);
    const joined = await anonymous('/invitations/accept', { token: tokenOf(again), password: 'legacy person pw' });
    expect(joined.statusCode).toBe(201);
    const me = (await (await sessionFrom(harness.app, sessionCookieOf(joined))).request('GET', '/console/api/me')).json<{ accounts: Array<{ account_id: string }>; role: string }>();
    expect(me.accounts.map((account) => account.account_id)).toEqual([accountA]);
    expect(me.role).toBe('member');
  });

  it('a set-password link of before invitations works only for its own account', async () => {
    const issue = async (email: string, account: string, others: string[]) => {
      const user = await harness.services.db.query<{ id: string }>('INSERT INTO users (email) VALUES ($1) RETURNING id', [email]);
      const userId = user.rows[0]?.id as string;
      for (const accountId of [account, ...others]) await harness.services.db.query("INSERT INTO memberships (user_id, account_id, role) VALUES ($1, $2, 'member')", [userId, accountId]);
      const token = `legacy-${email}`;
      await harness.services.db.query("INSERT INTO one_time_tokens (token_hash, purpose, user_id, account_id, expires_at) VALUES ($1, 'set_password', $2, $3, now() + interval '1 day')", [
        hashToken(token),
        userId,
        account,
      ]);
      return token;
    };
    const good = await anonymous('/set-password', { token: await issue('old-a@x.test', accountA, []), password: 'an old link pw' });
    expect(good.statusCode).toBe(200);
    const me = (await (await sessionFrom(harness.app, sessionCookieOf(good))).request('GET', '/console/api/me')).json<{ accounts: Array<{ account_id: string }> }>();
    expect(me.accounts.map((account) => account.account_id)).toEqual([accountA]);
    // A link of B for someone who is (also) in A sets nothing.
    expect((await anonymous('/set-password', { token: await issue('old-ab@x.test', accountB, [accountA]), password: 'an old link pw' })).statusCode).toBe(403);
  });

  it('links are single-use, revocable and expire; accepting checks the signed-in email', async () => {
    const first = await ownerA.request('POST', '/console/api/invitations', { email: 'new@x.test', role: 'member' });
    const joined = await anonymous('/invitations/accept', { token: tokenOf(first), password: 'new person pw' });
    expect(joined.statusCode).toBe(201);
    expect((await anonymous('/invitations/accept', { token: tokenOf(first), password: 'second use pw' })).statusCode).toBe(404);
    expect((await anonymous('/invitations/preview', { token: tokenOf(first) })).statusCode).toBe(404);

    const revoked = await ownerA.request('POST', '/console/api/invitations', { email: 'revoked@x.test', role: 'member' });
    expect((await ownerA.request('DELETE', `/console/api/invitations/${revoked.json<Invited>().data.id}`)).statusCode).toBe(200);
    expect((await anonymous('/invitations/accept', { token: tokenOf(revoked), password: 'revoked pw 123' })).statusCode).toBe(404);

    const expired = await ownerA.request('POST', '/console/api/invitations', { email: 'late@x.test', role: 'member' });
    expect(new Date(expired.json<Invited & { data: { expires_at: string } }>().data.expires_at).getTime() - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    await harness.services.db.query("UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1", [expired.json<Invited>().data.id]);
    expect((await anonymous('/invitations/accept', { token: tokenOf(expired), password: 'too late pw 1' })).statusCode).toBe(404);

    // Inviting again replaces the open invitation: the lost link stops working.
    const lost = await ownerA.request('POST', '/console/api/invitations', { email: 'twice@x.test', role: 'member' });
    const resent = await ownerA.request('POST', '/console/api/invitations', { email: 'twice@x.test', role: 'member' });
    expect((await anonymous('/invitations/preview', { token: tokenOf(lost) })).statusCode).toBe(404);
    expect((await anonymous('/invitations/preview', { token: tokenOf(resent) })).statusCode).toBe(200);

    // Someone else, signed in, cannot accept a link meant for another email.
    const other = await ownerA.request('POST', '/console/api/invitations', { email: 'someone@x.test', role: 'admin' });
    const wrong = await adminB.request('POST', '/console/api/invitations/accept', { token: tokenOf(other) });
    expect(wrong.statusCode).toBe(403);
    expect((await adminB.request('POST', '/console/api/session/account', { account_id: accountA })).statusCode).toBe(404);
    // An existing user without a session is told to sign in, and given nothing.
    const existing = await adminB.request('POST', '/console/api/invitations', { email: 'owner-a@example.com', role: 'member' });
    const bare = await anonymous('/invitations/accept', { token: tokenOf(existing) });
    expect(bare.statusCode).toBe(401);
    expect((await anonymous('/invitations/accept', { token: tokenOf(existing), password: 'overwrite attempt' })).statusCode).toBe(409);
    expect((await signIn(harness.app, 'owner-a@example.com', PASSWORD)).cookie).toMatch(/junction_session=/);
  });

  it('lists open invitations to managers of the account only; another account’s are not found', async () => {
    const mine = await adminB.request('POST', '/console/api/invitations', { email: 'listed@x.test', role: 'member' });
    const listA = (await ownerA.request('GET', '/console/api/invitations')).json<{ data: Array<{ email: string }> }>().data.map((row) => row.email);
    expect(listA).not.toContain('listed@x.test');
    expect((await ownerA.request('DELETE', `/console/api/invitations/${mine.json<Invited>().data.id}`)).statusCode).toBe(404);
    expect((await anonymous('/invitations/preview', { token: tokenOf(mine) })).statusCode).toBe(200);
    expect((await ownerA.request('POST', '/console/api/invitations', { email: 'bad', role: 'member' })).statusCode).toBe(400);
    expect((await anonymous('/invitations/accept', { token: 'x'.repeat(43), password: 'whatever pw 1' })).statusCode).toBe(404);
  });

  it('bounds the live invitations an account holds; expired ones do not count', async () => {
    const capped = ((await runAdminCommand(harness.services, { command: 'accounts.create', name: 'busy inviter' })) as { data: { id: string } }).data.id;
    await runAdminCommand(harness.services, { command: 'users.create', email: 'busy@example.com', password: PASSWORD, account: capped, role: 'owner' });
    const busy = await signIn(harness.app, 'busy@example.com', PASSWORD);
    await harness.services.db.query(
      "INSERT INTO invitations (account_id, email, role, token_hash, expires_at) SELECT $1, 'bulk-' || n || '@x.test', 'member', sha256(('bulk-' || n)::bytea), now() + interval '1 day' FROM generate_series(1, 200) n",
      [capped],
    );
    const refused = await busy.request('POST', '/console/api/invitations', { email: 'one-more@x.test', role: 'member' });
    expect(refused.statusCode).toBe(409);
    await harness.services.db.query("UPDATE invitations SET expires_at = now() - interval '1 second' WHERE account_id = $1 AND email = 'bulk-1@x.test'", [capped]);
    expect((await busy.request('POST', '/console/api/invitations', { email: 'one-more@x.test', role: 'member' })).statusCode).toBe(201);
  });
});

describe(`members' powers (${engineName()})`, () => {
  it('an admin cannot invite as owner, touch an owner, or reach another account’s people', async () => {
    const adminA = await signIn(harness.app, 'admin-a@example.com', PASSWORD);
    const ownerId = (await ownerA.request('GET', '/console/api/me')).json<{ user: { id: string } }>().user.id;
    const adminBId = (await adminB.request('GET', '/console/api/me')).json<{ user: { id: string } }>().user.id;

    expect((await adminA.request('POST', '/console/api/invitations', { email: 'boss@x.test', role: 'owner' })).statusCode).toBe(403);
    const ownerInvite = await ownerA.request('POST', '/console/api/invitations', { email: 'boss@x.test', role: 'owner' });
    expect((await adminA.request('DELETE', `/console/api/invitations/${ownerInvite.json<Invited>().data.id}`)).statusCode).toBe(403);
    expect((await adminA.request('POST', '/console/api/invitations', { email: 'boss@x.test', role: 'member' })).statusCode).toBe(403);
    expect((await adminA.request('PATCH', `/console/api/members/${ownerId}`, { role: 'member' })).statusCode).toBe(403);
    expect((await adminA.request('DELETE', `/console/api/members/${ownerId}`)).statusCode).toBe(403);
    expect((await ownerA.request('GET', '/console/api/me')).statusCode).toBe(200);
    expect((await adminA.request('PATCH', `/console/api/members/${adminBId}`, { role: 'member' })).statusCode).toBe(404);
    expect((await adminA.request('DELETE', `/console/api/members/${adminBId}`)).statusCode).toBe(404);
    expect((await ownerA.request('PATCH', `/console/api/members/${ownerId}`, { role: 'admin' })).statusCode).toBe(409);
  });

  it('removing an admin ends their sessions there and revokes the invitations they made', async () => {
    await runAdminCommand(harness.services, { command: 'users.create', email: 'leaving@example.com', password: PASSWORD, role: 'admin' });
    const leaving = await signIn(harness.app, 'leaving@example.com', PASSWORD);
    const leavingId = (await leaving.request('GET', '/console/api/me')).json<{ user: { id: string } }>().user.id;
    const invite = await leaving.request('POST', '/console/api/invitations', { email: 'friend-of-leaver@x.test', role: 'admin' });
    expect((await ownerA.request('DELETE', `/console/api/members/${leavingId}`)).statusCode).toBe(200);
    expect((await leaving.request('GET', '/console/api/keys')).statusCode).toBe(401);
    expect((await anonymous('/invitations/preview', { token: tokenOf(invite) })).statusCode).toBe(404);
  });

  it('demoting an owner or an admin revokes the invitations their new role could not make', async () => {
    await runAdminCommand(harness.services, { command: 'users.create', email: 'co-owner@example.com', password: PASSWORD, role: 'owner' });
    const coOwner = await signIn(harness.app, 'co-owner@example.com', PASSWORD);
    const coOwnerId = (await coOwner.request('GET', '/console/api/me')).json<{ user: { id: string } }>().user.id;
    const asOwner = await coOwner.request('POST', '/console/api/invitations', { email: 'future-owner@x.test', role: 'owner' });
    const asAdmin = await coOwner.request('POST', '/console/api/invitations', { email: 'future-admin@x.test', role: 'admin' });
    expect((await ownerA.request('PATCH', `/console/api/members/${coOwnerId}`, { role: 'admin' })).statusCode).toBe(200);
    expect((await anonymous('/invitations/preview', { token: tokenOf(asOwner) })).statusCode).toBe(404);
    expect((await anonymous('/invitations/preview', { token: tokenOf(asAdmin) })).statusCode).toBe(200);
    expect((await ownerA.request('PATCH', `/console/api/members/${coOwnerId}`, { role: 'member' })).statusCode).toBe(200);
    expect((await anonymous('/invitations/preview', { token: tokenOf(asAdmin) })).statusCode).toBe(404);
  });
});

describe(`link passwords cost a scrypt each (${engineName()})`, () => {
  it('refuses more than 30 from one address in 15 minutes', async () => {
    const fromAddress = (payload: object) =>
      harness.app.inject({ method: 'POST', url: '/console/api/invitations/accept', remoteAddress: '127.0.0.77', headers: { origin: ORIGIN, host: 'localhost:80' }, payload });
    const statuses: number[] = [];
    for (let index = 0; index < 31; index += 1) {
      const invited = await ownerA.request('POST', '/console/api/invitations', { email: `burst-${index}@x.test`, role: 'member' });
      statuses.push((await fromAddress({ token: tokenOf(invited), password: 'burst password' })).statusCode);
    }
    expect(statuses.slice(0, 30).every((status) => status === 201)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });
});
