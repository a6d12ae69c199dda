import { z } from 'zod';
import { CurrencyCodeSchema, GrantAmountSchema, GrantNoteSchema } from '../../credits/grant-input.ts';

export const CreditBalanceSchema = z.object({
  /** Granted minus used, in USD. */
  usd: z.number(),
  granted_usd: z.number(),
  used_usd: z.number(),
  /** Held by calls in flight. */
  reserved_usd: z.number(),
  by_currency: z.array(z.object({ currency: z.string(), amount: z.string(), usd: z.number() })),
});

export const CreditGrantSchema = z.object({
  id: z.number(),
  currency: z.string(),
  amount: z.string(),
  usd_rate: z.string(),
  usd: z.number(),
  note: z.string().nullable(),
  /** Who granted it: a console operator's email, "operator (CLI)" for the CLI; only operators are told. */
  granted_by: z.string().nullable(),
  created_at: z.string(),
});
export type CreditGrantView = z.infer<typeof CreditGrantSchema>;

/** `GET /console/api/credits`: the session account's balance, grants and monthly spend, and whether the caller may grant. */
export const CreditsSchema = z.object({
  balance: CreditBalanceSchema,
  grants: z.array(CreditGrantSchema),
  /** Newest first; UTC months. */
  spend_by_month: z.array(z.object({ month: z.string(), requests: z.number(), spend_usd: z.number() })),
  operator: z.boolean(),
  /** Currencies a grant may be made in (those with a configured USD rate). */
  currencies: z.array(z.string()),
  /** What someone who cannot grant is told about getting more credit. */
  how_to_get_more: z.string(),
});
export type Credits = z.infer<typeof CreditsSchema>;

export const CreditAccountSchema = z.object({ id: z.string(), name: z.string(), default: z.boolean(), balance_usd: z.number() });
export type CreditAccount = z.infer<typeof CreditAccountSchema>;
export const CreditAccountListSchema = z.object({ data: z.array(CreditAccountSchema) });

/** `POST /console/api/credits/grants` (operators): the same fields as `junction credits grant`. */
export const GrantInputSchema = z.strictObject({
  account_id: z.uuid('an account of this server'),
  amount: z.string().trim().pipe(GrantAmountSchema),
  // The console takes `eur` for EUR; the CLI upper-cases what is typed itself.
  currency: z.string().trim().toUpperCase().pipe(CurrencyCodeSchema),
  note: z.string().trim().pipe(GrantNoteSchema).optional(),
});
export type GrantInput = z.input<typeof GrantInputSchema>;

export const GrantedSchema = z.object({ data: CreditGrantSchema, account: CreditAccountSchema });
