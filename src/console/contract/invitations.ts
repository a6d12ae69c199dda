import { z } from 'zod';
import { EmailSchema, PasswordSchema, RoleSchema } from './session.ts';

/**
 * Invitations: how a person joins an account. An invitation belongs to the account that
 * made it, grants only that account's role, and works once, within 7 days, through a
 * link the inviter is shown once (Junction sends no email).
 */
export const InviteSchema = z.strictObject({ email: EmailSchema, role: RoleSchema });
export type Invite = z.infer<typeof InviteSchema>;

export const InvitationSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: RoleSchema,
  invited_by: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
});
export type Invitation = z.infer<typeof InvitationSchema>;
export const InvitationListSchema = z.object({ data: z.array(InvitationSchema) });

/** The answer to an invitation: the link to send, shown this once (only its hash is kept). */
export const InvitedSchema = z.object({ data: InvitationSchema, invite_url: z.string() });

export const InvitationTokenSchema = z.strictObject({ token: z.string().min(1).max(200) });

/**
 * What the invite page shows before acting. `new_person`: the email has no Junction
 * account yet, so the link may set its password; otherwise the person signs in first.
 */
export const InvitationPreviewSchema = z.object({
  account_name: z.string(),
  email: z.string(),
  role: RoleSchema,
  expires_at: z.string(),
  new_person: z.boolean(),
});
export type InvitationPreview = z.infer<typeof InvitationPreviewSchema>;

/** Accepting: signed in as the invited email, without a password; or, for a new person, with the password to set. */
export const AcceptInvitationSchema = z.strictObject({ token: z.string().min(1).max(200), password: PasswordSchema.optional() });
export const AcceptedInvitationSchema = z.object({ ok: z.literal(true), account_id: z.string() });
