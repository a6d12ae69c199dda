import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { JunctionError } from '../core/errors.ts';
import { parseInput } from '../http/parse-body.ts';
import type { Database } from '../store/database.ts';
import { type ConsoleCaller, consoleCaller, requireConsoleUser } from './console-auth.ts';
import { AddMemberSchema, ChangeRoleSchema, type Member } from './contract/members.ts';
import type { Role } from './contract/session.ts';
import { issueToken } from './one-time-tokens.ts';
import { endSessionsOn } from './session-repository.ts';
import { addMembership, countOwners, listMembers, type MemberRow, removeMembership, roleIn, upsertUser } from './user-repository.ts';

export type MembersDeps = { db: Database; now: () => Date };

const UserParamsSchema = z.object({ userId: z.uuid() });

const toMember = (row: MemberRow): Member => ({ user_id: row.user_id, email: row.email, role: row.role, has_password: row.has_password, joined_at: row.joined_at.toISOString() });

/** Only an owner may hand out or take away the owner role. */
function assertMayAssign(caller: ConsoleCaller, role: Role): void {
  if (role === 'owner' && caller.role !== 'owner') throw new JunctionError('forbidden', 'Only an owner can make someone an owner.');
}

/** The account's members: owners and admins add people (with a one-time set-password link), change roles, remove them. */
export async function membersRoutes(app: FastifyInstance, deps: MembersDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);
  const manager = requireConsoleUser(deps.db, deps.now, 'admin');

  app.get('/members', { preHandler: reader }, async (request) => ({ data: (await listMembers(deps.db, consoleCaller(request).accountId)).map(toMember) }));

  app.post('/members', { preHandler: manager }, async (request, reply) => {
    const caller = consoleCaller(request);
    const input = parseInput(AddMemberSchema, request.body);
    assertMayAssign(caller, input.role);
    const { user, link } = await deps.db.transaction(async (tx) => {
      const existing = await upsertUser(tx, input.email, null);
      if (await roleIn(tx, existing.id, caller.accountId)) throw new JunctionError('conflict', `${input.email} is already a member of this account.`, { param: 'email' });
      await addMembership(tx, existing.id, caller.accountId, input.role);
      // Someone who has never set a password gets a one-time link; an existing user just gains the account.
      const token = existing.passwordHash ? undefined : await issueToken(tx, 'set_password', existing.id, deps.now());
      return { user: existing, link: token };
    });
    const members = await listMembers(deps.db, caller.accountId);
    const member = members.find((row) => row.user_id === user.id) as MemberRow;
    const origin = `${request.protocol}://${request.headers.host ?? 'localhost'}`;
    return reply.status(201).send({ data: toMember(member), set_password_url: link ? `${origin}/set-password?token=${link}` : null });
  });

  app.patch('/members/:userId', { preHandler: manager }, async (request) => {
    const caller = consoleCaller(request);
    const { userId } = parseInput(UserParamsSchema, request.params, 'path');
    const { role } = parseInput(ChangeRoleSchema, request.body);
    const current = await roleIn(deps.db, userId, caller.accountId);
    if (!current) throw new JunctionError('not_found', 'No such member in this account.');
    assertMayAssign(caller, role);
    if (current === 'owner') {
      assertMayAssign(caller, current);
      if (role !== 'owner' && (await countOwners(deps.db, caller.accountId)) <= 1) throw new JunctionError('conflict', 'An account keeps at least one owner.');
    }
    await addMembership(deps.db, userId, caller.accountId, role);
    const member = (await listMembers(deps.db, caller.accountId)).find((row) => row.user_id === userId) as MemberRow;
    return { data: toMember(member) };
  });

  app.delete('/members/:userId', { preHandler: manager }, async (request) => {
    const caller = consoleCaller(request);
    const { userId } = parseInput(UserParamsSchema, request.params, 'path');
    const current = await roleIn(deps.db, userId, caller.accountId);
    if (!current) throw new JunctionError('not_found', 'No such member in this account.');
    if (current === 'owner') {
      assertMayAssign(caller, current);
      if ((await countOwners(deps.db, caller.accountId)) <= 1) throw new JunctionError('conflict', 'An account keeps at least one owner.');
    }
    await removeMembership(deps.db, userId, caller.accountId);
    await endSessionsOn(deps.db, userId, caller.accountId);
    return { deleted: true };
  });
}
