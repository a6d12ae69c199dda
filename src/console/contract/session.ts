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

export const SignedInSchema = z.object({
  signed_in: z.literal(true),
  user: z.object({ id: z.string(), email: z.string() }),
  accounts: z.array(MembershipSchema),
  current_account_id: z.string(),
  role: RoleSchema,
  /** Sent back as `x-csrf-token` on every mutating request. */
  csrf_token: z.string(),
});
/**
 * `GET /me` answers 200 either way: "not signed in" is an ordinary state of the app,
 * not an error (a 401 would be logged as an error in every browser console).
 */
export const MeSchema = z.discriminatedUnion('signed_in', [SignedInSchema, z.object({ signed_in: z.literal(false) })]);
export type Me = z.infer<typeof SignedInSchema>;

/** A sign-in answer: 200 with `ok: false` and the reason for wrong credentials (a form error, not a failed request). */
export const SignInResultSchema = z.discriminatedUnion('ok', [z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false), message: z.string() })]);

export const SetupStatusSchema = z.object({ needs_setup: z.boolean() });

/** Every console error: `{ error: { message, code, param } }` with a fitting HTTP status. */
export const ConsoleErrorSchema = z.object({ error: z.object({ message: z.string(), code: z.string().nullish(), param: z.string().nullish() }) });
