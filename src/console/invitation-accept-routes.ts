import type { FastifyInstance } from 'fastify';
import { JunctionError } from '../core/errors.ts';
import { parseInput } from '../http/parse-body.ts';
import type { Database } from '../store/database.ts';
import { checkSameOrigin, type ConsoleCaller, resolveCaller } from './console-auth.ts';
import { AcceptInvitationSchema, type InvitationPreview, InvitationTokenSchema } from './contract/invitations.ts';
import { setSessionCookie } from './cookies.ts';
import { claimWithLink, isNewPerson, signInToAccept } from './invitation-identity.ts';
import { findUsableInvitation, markAccepted, type UsableInvitation } from './invitation-repository.ts';
import { limitAttempt, linkPasswordsPerAddress } from './password-attempt-limits.ts';
import { hashPassword } from './password-hash.ts';
import { createSession, SESSION_ABSOLUTE_MS, switchSessionAccount } from './session-repository.ts';
import { addMembership, roleIn } from './user-repository.ts';

export type InvitationAcceptDeps = { db: Database; now: () => Date };

const unusable = (): JunctionError => new JunctionError('not_found', 'This invitation is invalid, expired, revoked or already used; ask for a new one.', { param: 'token' });

/**
 * Opening an invite link, without being a member of anything yet: see what it offers,
 * then accept it. Whatever the path, the membership it grants is the inviting account's,
 * and a session it starts reaches only that account.
 */
export async function invitationAcceptRoutes(app: FastifyInstance, deps: InvitationAcceptDeps): Promise<void> {
  const usable = async (token: string): Promise<UsableInvitation> => {
    const invitation = await findUsableInvitation(deps.db, token, deps.now());
    if (!invitation) throw unusable();
    return invitation;
  };

  /** A signed-in person accepts with the link sent to their own email; returns the account joined. */
  const acceptSignedIn = (caller: ConsoleCaller, token: string): Promise<string> =>
    deps.db.transaction(async (tx) => {
      const invitation = await findUsableInvitation(tx, token, deps.now(), true);
      if (!invitation) throw unusable();
      if (invitation.email !== caller.user.email.toLowerCase()) {
        throw new JunctionError('forbidden', `This invitation is for ${invitation.email}, and you are signed in as ${caller.user.email}: sign out, then open the link again.`);
      }
      if (await roleIn(tx, caller.user.id, invitation.accountId)) throw new JunctionError('conflict', `You are already a member of ${invitation.accountName}.`);
      await addMembership(tx, caller.user.id, invitation.accountId, invitation.role);
      await markAccepted(tx, invitation.id, caller.user.id, deps.now());
      return invitation.accountId;
    });

  app.post('/invitations/preview', async (request): Promise<InvitationPreview> => {
    const { token } = parseInput(InvitationTokenSchema, request.body);
    const invitation = await usable(token);
    return {
      account_name: invitation.accountName,
      email: invitation.email,
      role: invitation.role,
      expires_at: invitation.expiresAt.toISOString(),
      new_person: await isNewPerson(deps.db, invitation, deps.now()),
    };
  });

  app.post('/invitations/accept', async (request, reply) => {
    checkSameOrigin(request);
    const input = parseInput(AcceptInvitationSchema, request.body);
    const caller = await resolveCaller(deps.db, request, deps.now());
    if (caller) {
      if (request.headers['x-csrf-token'] !== caller.session.csrfToken) throw new JunctionError('forbidden', 'The CSRF token is missing or wrong; reload the console and try again.');
      if (input.password !== undefined) throw new JunctionError('invalid_request', 'You are signed in: accept without a password.', { param: 'password' });
      const accountId = await acceptSignedIn(caller, input.token);
      await switchSessionAccount(deps.db, caller.session.tokenHash, accountId);
      return { ok: true, account_id: accountId };
    }
    const invitation = await usable(input.token);
    if (input.password === undefined) throw new JunctionError('not_signed_in', `Sign in as ${invitation.email} to accept this invitation.`);
    // Hashed only once the link is known to set a password: retrying a link that cannot costs no scrypt.
    if (!(await isNewPerson(deps.db, invitation, deps.now()))) throw signInToAccept(invitation.email);
    await limitAttempt(deps.db, deps.now(), linkPasswordsPerAddress, request.ip, 'passwords set through links');
    const passwordHash = await hashPassword(input.password);
    const { userId, accountId } = await deps.db.transaction(async (tx) => {
      const locked = await findUsableInvitation(tx, input.token, deps.now(), true);
      if (!locked) throw unusable();
      const claimed = await claimWithLink(tx, locked, passwordHash, deps.now());
      await addMembership(tx, claimed, locked.accountId, locked.role);
      await markAccepted(tx, locked.id, claimed, deps.now());
      return { userId: claimed, accountId: locked.accountId };
    });
    const { token } = await createSession(deps.db, userId, accountId, deps.now());
    setSessionCookie(request, reply, token, SESSION_ABSOLUTE_MS / 1000);
    return reply.status(201).send({ ok: true, account_id: accountId });
  });
}
