import { z } from 'zod';
import { RoleSchema } from './session.ts';

export const MemberSchema = z.object({ user_id: z.string(), email: z.string(), role: RoleSchema, has_password: z.boolean(), joined_at: z.string() });
export type Member = z.infer<typeof MemberSchema>;
export const MemberListSchema = z.object({ data: z.array(MemberSchema) });

export const ChangeRoleSchema = z.strictObject({ role: RoleSchema });

/** People join through invitations (contract/invitations.ts); `POST /members` is an invitation too. */

export const AccountSchema = z.object({ id: z.string(), name: z.string(), plan: z.string() });
