import { JunctionError } from '../core/errors.ts';
import type { Queryable } from '../store/database.ts';
import { invitedEarlierElsewhere, type UsableInvitation } from './invitation-repository.ts';
import { countMembershipsElsewhere, findUserByEmail, insertUserIfAbsent, lockUserByEmail, roleIn, setPassword, type User } from './user-repository.ts';

/**
 * Who may set a password through an invite link alone. Junction sends no email, so a
 * link proves nothing about who holds it; a link of account X may therefore only make a
 * sign-in that reaches X and nothing else: for an email with no user yet, or with a user
 * that has no password and belongs to no account but X (someone X added before
 * invitations existed). An email with no user that another account invited earlier,
 * still open, is that account's to claim first: a later invitation cannot take the person
 * away from the account that invited them. Everyone else signs in as themselves.
 */
async function linkMayClaim(db: Queryable, invitation: UsableInvitation, user: User | undefined, now: Date): Promise<boolean> {
  if (user && (user.passwordHash !== null || (await countMembershipsElsewhere(db, user.id, invitation.accountId)) > 0)) return false;
  if (user && (await roleIn(db, user.id, invitation.accountId))) return true;
  return !(await invitedEarlierElsewhere(db, invitation, now));
}

/** For the invite page: may this link set the password, or must the person sign in first? */
export async function isNewPerson(db: Queryable, invitation: UsableInvitation, now: Date): Promise<boolean> {
  return linkMayClaim(db, invitation, await findUserByEmail(db, invitation.email), now);
}

export const signInToAccept = (email: string): JunctionError =>
  new JunctionError(
    'conflict',
    `${email} already has a Junction sign-in or an earlier invitation: sign in as ${email} (or open the first invitation you received), then open this link again to accept.`,
    { param: 'password' },
  );

/**
 * Inside the accepting transaction: the user this link makes (or, for someone added
 * before invitations, completes) with the given password, or a refusal.
 */
export async function claimWithLink(tx: Queryable, invitation: UsableInvitation, passwordHash: string, now: Date): Promise<string> {
  const existing = await lockUserByEmail(tx, invitation.email);
  if (existing) {
    if (!(await linkMayClaim(tx, invitation, existing, now))) throw signInToAccept(invitation.email);
    await setPassword(tx, existing.id, passwordHash);
    return existing.id;
  }
  if (await invitedEarlierElsewhere(tx, invitation, now)) throw signInToAccept(invitation.email);
  // Another link making this email's user at the same moment wins; this one is refused.
  const created = await insertUserIfAbsent(tx, invitation.email, passwordHash);
  if (!created) throw signInToAccept(invitation.email);
  return created;
}
