import { z } from 'zod';
import { EmailSchema, RoleSchema } from './session.ts';

export const MemberSchema = z.object({ user_id: z.string(), email: z.string(), role: RoleSchema, has_password: z.boolean(), joined_at: z.string() });
export type Member = z.infer<typeof MemberSchema>;
export const MemberListSchema = z.object({ data: z.array(MemberSchema) });

export const AddMemberSchema = z.strictObject({ email: EmailSchema, role: RoleSchema });
export const ChangeRoleSchema = z.strictObject({ role: RoleSchema });

/** Adding someone without a password yields a one-time link to set it (shown once). */
export const AddedMemberSchema = z.object({ data: MemberSchema, set_password_url: z.string().nullable() });

export const AccountSchema = z.object({ id: z.string(), name: z.string(), plan: z.string() });
