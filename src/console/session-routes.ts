import type { FastifyInstance } from 'fastify';
import { JunctionError } from '../core/errors.ts';
import { parseInput } from '../http/parse-body.ts';
import type { Database } from '../store/database.ts';
import { checkSameOrigin, consoleCaller, requireConsoleUser, resolveCaller } from './console-auth.ts';
import type { z } from 'zod';
import { CompleteSetupSchema, type MeSchema, SetPasswordSchema, SignInSchema, SwitchAccountSchema } from './contract/session.ts';
import { clearSessionCookie, setSessionCookie } from './cookies.ts';
import { issueSetupTokenRow, isUsableToken, spendToken } from './one-time-tokens.ts';
import { hashPassword, verifyPassword } from './password-hash.ts';
import { forgetAttempts, limitAttempt, linkPasswordsPerAddress, signInsPerAddress, signInsPerEmail } from './password-attempt-limits.ts';
import { createSession, deleteSession, SESSION_ABSOLUTE_MS, switchSessionAccount } from './session-repository.ts';
import { addMembership, countMembershipsElsewhere, countUsers, findUserByEmail, lockUser, membershipsOf, roleIn, setPassword, upsertUser } from './user-repository.ts';

/** `defaultAccountId` is read when a console owner is created: the routes are registered before the store has told the services which account is the default. */
export type SessionRoutesDeps = { db: Database; now: () => Date; defaultAccountId: () => string };

/** Sign-in, sign-out, who am I, account switching, first-owner setup and set-password links issued before invitations. */
export async function sessionRoutes(app: FastifyInstance, deps: SessionRoutesDeps): Promise<void> {
  const signedIn = requireConsoleUser(deps.db, deps.now);

  const startSession = async (request: Parameters<typeof setSessionCookie>[0], reply: Parameters<typeof setSessionCookie>[1], userId: string) => {
    const [first] = await membershipsOf(deps.db, userId);
    if (!first) throw new JunctionError('forbidden', 'This user belongs to no account yet; ask an owner to add you.');
    const { token } = await createSession(deps.db, userId, first.account_id, deps.now());
    setSessionCookie(request, reply, token, SESSION_ABSOLUTE_MS / 1000);
  };

  app.get('/setup', async () => ({ needs_setup: (await countUsers(deps.db)) === 0 }));

  app.post('/setup', async (request, reply) => {
    checkSameOrigin(request);
    const input = parseInput(CompleteSetupSchema, request.body);
    if ((await countUsers(deps.db)) > 0) throw new JunctionError('forbidden', 'The console is already set up; sign in instead.');
    const passwordHash = await hashPassword(input.password);
    const user = await deps.db.transaction(async (tx) => {
      if (!(await spendToken(tx, 'setup', input.token, deps.now()))) throw new JunctionError('forbidden', 'This setup link is invalid, expired or already used.');
      const created = await upsertUser(tx, input.email, passwordHash);
      await addMembership(tx, created.id, deps.defaultAccountId(), 'owner');
      return created;
    });
    await startSession(request, reply, user.id);
    return reply.status(201).send({ ok: true });
  });

  app.post('/set-password', async (request, reply) => {
    checkSameOrigin(request);
    const input = parseInput(SetPasswordSchema, request.body);
    const refused = () => new JunctionError('forbidden', 'This link is invalid, expired or already used; ask an owner for a new invitation.');
    // Hashed only for a live link: guessing tokens costs no scrypt.
    if (!(await isUsableToken(deps.db, 'set_password', input.token, deps.now()))) throw refused();
    await limitAttempt(deps.db, deps.now(), linkPasswordsPerAddress, request.ip, 'passwords set through links');
    const passwordHash = await hashPassword(input.password);
    const { userId, accountId } = await deps.db.transaction(async (tx) => {
      const spent = await spendToken(tx, 'set_password', input.token, deps.now());
      if (!spent?.userId || !spent.accountId) throw refused();
      // The link's account is the only one the person may be in, and they must still be in it: it never reaches another.
      const user = await lockUser(tx, spent.userId);
      const stillPending = user?.passwordHash === null && (await roleIn(tx, spent.userId, spent.accountId)) !== undefined;
      if (!stillPending || (await countMembershipsElsewhere(tx, spent.userId, spent.accountId)) > 0) throw refused();
      await setPassword(tx, spent.userId, passwordHash);
      return { userId: spent.userId, accountId: spent.accountId };
    });
    const { token } = await createSession(deps.db, userId, accountId, deps.now());
    setSessionCookie(request, reply, token, SESSION_ABSOLUTE_MS / 1000);
    return { ok: true };
  });

  app.post('/session', async (request, reply) => {
    checkSameOrigin(request);
    const input = parseInput(SignInSchema, request.body);
    await limitAttempt(deps.db, deps.now(), signInsPerAddress, request.ip, 'sign-in attempts');
    await limitAttempt(deps.db, deps.now(), signInsPerEmail, `${input.email}|${request.ip}`, 'sign-in attempts');
    const user = await findUserByEmail(deps.db, input.email);
    // Verified even for an unknown email (against a decoy): both failures take as long.
    const valid = await verifyPassword(input.password, user?.passwordHash ?? null);
    if (!user || !valid) return { ok: false, message: 'The email or password is wrong.' };
    await forgetAttempts(deps.db, signInsPerEmail, `${input.email}|${request.ip}`);
    await startSession(request, reply, user.id);
    return { ok: true };
  });

  app.delete('/session', { preHandler: signedIn }, async (request, reply) => {
    await deleteSession(deps.db, consoleCaller(request).session.tokenHash);
    clearSessionCookie(request, reply);
    return { ok: true };
  });

  app.get('/me', async (request): Promise<z.infer<typeof MeSchema>> => {
    const caller = await resolveCaller(deps.db, request, deps.now());
    if (!caller) return { signed_in: false };
    return {
      signed_in: true,
      user: { id: caller.user.id, email: caller.user.email },
      accounts: await membershipsOf(deps.db, caller.user.id),
      current_account_id: caller.accountId,
      role: caller.role,
      csrf_token: caller.session.csrfToken,
    };
  });

  app.post('/session/account', { preHandler: signedIn }, async (request) => {
    const caller = consoleCaller(request);
    const { account_id: accountId } = parseInput(SwitchAccountSchema, request.body);
    if (!(await roleIn(deps.db, caller.user.id, accountId))) throw new JunctionError('not_found', 'No such account among yours.');
    await switchSessionAccount(deps.db, caller.session.tokenHash, accountId);
    return { ok: true };
  });
}

/**
 * On a start with no console user: a one-time token that lets the first person create
 * the owner of the default account. Earlier unused setup tokens stop working.
 */
export async function issueSetupToken(db: Database, now: Date): Promise<string | undefined> {
  if ((await countUsers(db)) > 0) return undefined;
  await db.query("DELETE FROM one_time_tokens WHERE purpose = 'setup'");
  return issueSetupTokenRow(db, now);
}

/** The console's page that takes a setup token. */
export const setupLink = (baseUrl: string, token: string): string => `${baseUrl}/setup?token=${token}`;

/** issueSetupToken as the link to open. */
export async function issueSetupLink(db: Database, baseUrl: string, now: Date): Promise<string | undefined> {
  const token = await issueSetupToken(db, now);
  return token === undefined ? undefined : setupLink(baseUrl, token);
}
