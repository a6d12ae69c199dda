import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { JunctionError } from '../core/errors.ts';
import { parseInput } from '../http/parse-body.ts';
import { publicOrigin } from '../http/public-origin.ts';
import type { Database, Queryable } from '../store/database.ts';
import { type ConsoleCaller, consoleCaller, requireConsoleUser } from './console-auth.ts';
import { type Invitation, type Invite, InviteSchema } from './contract/invitations.ts';
import type { Role } from './contract/session.ts';
import {
  countLiveInvitations,
  createInvitation,
  findOpenInvitation,
  isOpenInvitationClash,
  type InvitationRow,
  listOpenInvitations,
  lockOpenInvitationFor,
  MAX_OPEN_INVITATIONS,
  revokeInvitation,
} from './invitation-repository.ts';
import { findUserByEmail, roleIn } from './user-repository.ts';

export type InvitationsDeps = { db: Database; now: () => Date };

const InvitationParamsSchema = z.object({ id: z.uuid() });

const toInvitation = (row: InvitationRow): Invitation => ({
  id: row.id,
  email: row.email,
  role: row.role,
  invited_by: row.invited_by_email,
  created_at: row.created_at.toISOString(),
  expires_at: row.expires_at.toISOString(),
});

/** Only an owner may invite an owner, or touch an owner's invitation. */
function assertMayInviteAs(caller: ConsoleCaller, role: Role): void {
  if (role === 'owner' && caller.role !== 'owner') throw new JunctionError('forbidden', 'Only an owner can invite an owner.');
}

/** The console page that takes an invitation's token. */
const inviteLink = (request: FastifyRequest, token: string): string => `${publicOrigin(request)}/invite?token=${token}`;

/** Makes the invitation inside a transaction: refuses members, replaces an open one, keeps the account's count bounded. */
async function inviteIn(tx: Queryable, caller: ConsoleCaller, input: Invite, now: Date): Promise<{ row: InvitationRow; token: string }> {
  const user = await findUserByEmail(tx, input.email);
  const memberRole = user ? await roleIn(tx, user.id, caller.accountId) : undefined;
  if (memberRole && user?.passwordHash) throw new JunctionError('conflict', `${input.email} is already a member of this account.`, { param: 'email' });
  // A member added before invitations who never set a password can be invited again (the link completes them), an owner only by an owner.
  if (memberRole) assertMayInviteAs(caller, memberRole);
  // Inviting again replaces the open invitation (a lost link), under the same rule as making it.
  const open = await lockOpenInvitationFor(tx, caller.accountId, input.email);
  if (open) {
    assertMayInviteAs(caller, open.role);
    await revokeInvitation(tx, open.id, now);
  } else if ((await countLiveInvitations(tx, caller.accountId, now)) >= MAX_OPEN_INVITATIONS) {
    throw new JunctionError('conflict', `This account has ${MAX_OPEN_INVITATIONS} pending invitations; revoke some first.`);
  }
  return createInvitation(tx, { accountId: caller.accountId, email: input.email, role: input.role, invitedBy: caller.user.id, now });
}

/**
 * An account's invitations, managed by its owners and admins: inviting never creates a
 * user or a membership, it creates an invitation of this account whose link the inviter
 * passes on; the person joins by opening it (see invitation-accept-routes.ts).
 */
export async function invitationsRoutes(app: FastifyInstance, deps: InvitationsDeps): Promise<void> {
  const manager = requireConsoleUser(deps.db, deps.now, 'admin');

  app.get('/invitations', { preHandler: manager }, async (request) => ({ data: (await listOpenInvitations(deps.db, consoleCaller(request).accountId)).map(toInvitation) }));

  const invite = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = consoleCaller(request);
    const input = parseInput(InviteSchema, request.body);
    assertMayInviteAs(caller, input.role);
    const { row, token } = await deps.db
      .transaction((tx) => inviteIn(tx, caller, input, deps.now()))
      .catch((error: unknown) => {
        if (isOpenInvitationClash(error)) throw new JunctionError('conflict', `${input.email} is being invited by someone else right now; reload and try again.`, { param: 'email' });
        throw error;
      });
    return reply.status(201).send({ data: toInvitation(row), invite_url: inviteLink(request, token) });
  };
  app.post('/invitations', { preHandler: manager }, invite);
  // Adding a member by email is inviting them: the same route under its older name.
  app.post('/members', { preHandler: manager }, invite);

  app.delete('/invitations/:id', { preHandler: manager }, async (request) => {
    const caller = consoleCaller(request);
    const { id } = parseInput(InvitationParamsSchema, request.params, 'path');
    const open = await findOpenInvitation(deps.db, caller.accountId, id);
    if (!open) throw new JunctionError('not_found', 'No such open invitation in this account.');
    assertMayInviteAs(caller, open.role);
    await revokeInvitation(deps.db, open.id, deps.now());
    return { revoked: true };
  });
}
