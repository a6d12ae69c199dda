import { z } from 'zod';
import type { CreateKeySchema, UpdateKeySchema } from '../../keys/key-input-schema.ts';
import { KeyKindSchema } from '../../keys/key-kind.ts';

export { KeyKindSchema, type KeyKind } from '../../keys/key-kind.ts';

/** A key as the console lists it (the same fields as `/v1/keys`, plus its kind's extras). */
export const ConsoleKeySchema = z.object({
  id: z.string(),
  kind: KeyKindSchema,
  name: z.string(),
  label: z.string(),
  description: z.string().nullable(),
  disabled: z.boolean(),
  expired: z.boolean(),
  daily_limit_usd: z.number().nullable(),
  monthly_limit_usd: z.number().nullable(),
  total_limit_usd: z.number().nullable(),
  spend: z.object({ day_usd: z.number(), month_usd: z.number(), lifetime_usd: z.number() }),
  expires_at: z.string().nullable(),
  allowed_models: z.array(z.string()).nullable(),
  rate_limit_rpm: z.number().nullable(),
  cache_ttl_seconds: z.number().nullable(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type ConsoleKey = z.infer<typeof ConsoleKeySchema>;

export const KeyListSchema = z.object({ data: z.array(ConsoleKeySchema) });

/** What a create answers: the plain key, shown once and never again. */
export const CreatedKeySchema = z.object({ data: ConsoleKeySchema, key: z.string() });

/**
 * Model keys are created and edited with the same schemas as `/v1/keys` (one set of
 * rules: blank clears on edit, USD as numbers or decimal strings).
 */
export { CreateKeySchema as ModelKeyInputSchema, UpdateKeySchema as ModelKeyUpdateSchema } from '../../keys/key-input-schema.ts';
export type ModelKeyInput = z.input<typeof CreateKeySchema>;
export type ModelKeyUpdate = z.input<typeof UpdateKeySchema>;

export const SimpleKeyInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
});
export type SimpleKeyInput = z.infer<typeof SimpleKeyInputSchema>;
