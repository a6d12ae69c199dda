import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { JunctionError } from '../core/errors.ts';
import { parseInput } from '../http/parse-body.ts';
import type { Database, Queryable } from '../store/database.ts';
import { type ConsoleCaller, consoleCaller, requireConsoleUser } from './console-auth.ts';
import { ChangeRoleSchema, type Member } from './contract/members.ts';
import type { Role } from './contract/session.ts';
import { revokeInvitationsBy } from './invitation-repository.ts';
import { endSessionsOn } from './session-repository.ts';
import { addMembership, listMembers, lockOwners, type MemberRow, removeMembership, roleIn } from './user-repository.ts';

export type MembersDeps = { db: Database; now: () => Date };

const UserParamsSchema = z.object({ userId: z.uuid() });

const toMember = (row: MemberRow): Member => ({ user_id: row.user_id, email: row.email, role: row.role, has_password: row.has_password, joined_at: row.joined_at.toISOString() });

/** The invitation roles each role may not make: members invite nobody, admins no owner. */
const NOT_INVITABLE_BY: Record<Role, Role[]> = { owner: [], admin: ['owner'], member: ['owner', 'admin', 'member'] };

/** Only an owner may hand out or take away the owner role. */
function assertMayAssign(actorRole: Role, role: Role): void {
  if (role === 'owner' && actorRole !== 'owner') throw new JunctionError('forbidden', 'Only an owner can make someone an owner.');
}

/** The caller's role read again under the owners' lock: a demotion that just committed counts. */
async function currentRole(tx: Queryable, caller: ConsoleCaller): Promise<Role> {
  const role = await roleIn(tx, caller.user.id, caller.accountId);
  if (role !== 'owner' && role !== 'admin') throw new JunctionError('forbidden', 'This needs the admin role in this account.');
  return role;
}

/**
 * The account's members: owners and admins change roles and remove people (people join
 * through invitations, see invitations-routes.ts). Only owners touch owners, and an
 * account keeps at least one.
 */
export async function membersRoutes(app: FastifyInstance, deps: MembersDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);
  const manager = requireConsoleUser(deps.db, deps.now, 'admin');

  app.get('/members', { preHandler: reader }, async (request) => ({ data: (await listMembers(deps.db, consoleCaller(request).accountId)).map(toMember) }));

  app.patch('/members/:userId', { preHandler: manager }, async (request) => {
    const caller = consoleCaller(request);
    const { userId } = parseInput(UserParamsSchema, request.params, 'path');
    const { role } = parseInput(ChangeRoleSchema, request.body);
    await deps.db.transaction(async (tx) => {
      const owners = await lockOwners(tx, caller.accountId);
      const actor = await currentRole(tx, caller);
      const current = await roleIn(tx, userId, caller.accountId);
      if (!current) throw new JunctionError('not_found', 'No such member in this account.');
      assertMayAssign(actor, role);
      if (current === 'owner') {
        assertMayAssign(actor, current);
        if (role !== 'owner' && owners <= 1) throw new JunctionError('conflict', 'An account keeps at least one owner.');
      }
      await addMembership(tx, userId, caller.accountId, role);
      // An invitation stands on its maker's power: those the new role could not make stop working.
      await revokeInvitationsBy(tx, caller.accountId, userId, NOT_INVITABLE_BY[role], deps.now());
    });
    const member = (await listMembers(deps.db, caller.accountId)).find((row) => row.user_id === userId) as MemberRow;
    return { data: toMember(member) };
  });

  app.delete('/members/:userId', { preHandler: manager }, async (request) => {
    const caller = consoleCaller(request);
    const { userId } = parseInput(UserParamsSchema, request.params, 'path');
    await deps.db.transaction(async (tx) => {
      const owners = await lockOwners(tx, caller.accountId);
      const actor = await currentRole(tx, caller);
      const current = await roleIn(tx, userId, caller.accountId);
      if (!current) throw new JunctionError('not_found', 'No such member in this account.');
      if (current === 'owner') {
        assertMayAssign(actor, current);
        if (owners <= 1) throw new JunctionError('conflict', 'An account keeps at least one owner.');
      }
      await removeMembership(tx, userId, caller.accountId);
      await endSessionsOn(tx, userId, caller.accountId);
      await revokeInvitationsBy(tx, caller.accountId, userId, ['owner', 'admin', 'member'], deps.now());
    });
    return { deleted: true };
  });
}
