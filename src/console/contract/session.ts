import { z } from 'zod';

/**
 * The console's JSON contract, shared by the server routes (which parse requests
 * with these schemas) and the browser app (which types and checks answers with them).
 * Only zod here: this file is bundled into the browser.
 */
export const RoleSchema = z.enum(['owner', 'admin', 'member']);
export type Role = z.infer<typeof RoleSchema>;

export const EmailSchema = z.string().trim().toLowerCase().email('a valid email address').max(254);
/** Long enough to resist guessing; an upper bound so hashing stays cheap. */
export const PasswordSchema = z.string().min(10, 'at least 10 characters').max(200);

export const SignInSchema = z.strictObject({ email: EmailSchema, password: z.string().min(1).max(200) });
export type SignIn = z.infer<typeof SignInSchema>;

export const CompleteSetupSchema = z.strictObject({ token: z.string().min(1).max(200), email: EmailSchema, password: PasswordSchema });
export const SetPasswordSchema = z.strictObject({ token: z.string().min(1).max(200), password: PasswordSchema });
export const SwitchAccountSchema = z.strictObject({ account_id: z.uuid() });

export const MembershipSchema = z.object({ account_id: z.string(), account_name: z.string(), role: RoleSchema, plan: z.string() });
export type Membership = z.infer<typeof MembershipSchema>;

export const MeSchema = z.object({
  user: z.object({ id: z.string(), email: z.string() }),
  accounts: z.array(MembershipSchema),
  current_account_id: z.string(),
  role: RoleSchema,
  /** Sent back as `x-csrf-token` on every mutating request. */
  csrf_token: z.string(),
});
export type Me = z.infer<typeof MeSchema>;

export const SetupStatusSchema = z.object({ needs_setup: z.boolean() });

/** Every console error: `{ error: { message, code, param } }` with a fitting HTTP status. */
export const ConsoleErrorSchema = z.object({ error: z.object({ message: z.string(), code: z.string().nullish(), param: z.string().nullish() }) });
