import { z } from 'zod';
import { usdToMicros } from '../core/money.ts';
import { ManagedKeyKindSchema } from './key-kind.ts';

/** The wire shapes of a key's settings, shared by `/v1/keys`, the console and the browser (so only zod and money here). */
const usdAmount = z.union([z.number().nonnegative().max(1e9), z.string().regex(/^\d+(\.\d{1,6})?$/, 'a decimal USD amount')]).transform((value, context) => {
  try {
    return usdToMicros(value);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

/** The longest a response stays in the response cache: thirty days. */
export const MAX_CACHE_TTL_SECONDS = 2_592_000;

/** PostgreSQL text cannot hold NUL; the JSON parser already refused lone surrogates. */
const storableText = (value: string): boolean => !value.includes('\u0000');
const STORABLE_TEXT_MESSAGE = 'must not contain NUL characters';

const settingsFields = {
  name: z.string().trim().min(1).max(200).refine(storableText, STORABLE_TEXT_MESSAGE),
  description: z.string().max(2000).refine(storableText, STORABLE_TEXT_MESSAGE).nullable(),
  daily_limit_usd: usdAmount.nullable(),
  monthly_limit_usd: usdAmount.nullable(),
  total_limit_usd: usdAmount.nullable(),
  expires_at: z.iso
    .datetime({ offset: true })
    .transform((text) => new Date(text))
    .nullable(),
  allowed_models: z.array(z.string().min(1).max(200)).max(1000).nullable(),
  rate_limit_rpm: z.number().int().positive().max(1_000_000).nullable(),
  // Opts every call of the key into the response cache; a request's own `cache` wins.
  cache_ttl_seconds: z.number().int().positive().max(MAX_CACHE_TTL_SECONDS).nullable(),
  // OpenRouter's names: one limit whose reset period picks the window.
  limit: usdAmount.nullable(),
  limit_reset: z.enum(['daily', 'monthly']).nullable(),
};

export const CreateKeySchema = z.strictObject({
  ...settingsFields,
  kind: ManagedKeyKindSchema.default('model'),
  description: settingsFields.description.optional(),
  daily_limit_usd: settingsFields.daily_limit_usd.optional(),
  monthly_limit_usd: settingsFields.monthly_limit_usd.optional(),
  total_limit_usd: settingsFields.total_limit_usd.optional(),
  expires_at: settingsFields.expires_at.optional(),
  allowed_models: settingsFields.allowed_models.optional(),
  rate_limit_rpm: settingsFields.rate_limit_rpm.optional(),
  cache_ttl_seconds: settingsFields.cache_ttl_seconds.optional(),
  limit: settingsFields.limit.optional(),
  limit_reset: settingsFields.limit_reset.optional(),
});
export type CreateKeyInput = z.infer<typeof CreateKeySchema>;

export const UpdateKeySchema = z.strictObject({
  name: settingsFields.name.optional(),
  description: settingsFields.description.optional(),
  daily_limit_usd: settingsFields.daily_limit_usd.optional(),
  monthly_limit_usd: settingsFields.monthly_limit_usd.optional(),
  total_limit_usd: settingsFields.total_limit_usd.optional(),
  expires_at: settingsFields.expires_at.optional(),
  allowed_models: settingsFields.allowed_models.optional(),
  rate_limit_rpm: settingsFields.rate_limit_rpm.optional(),
  cache_ttl_seconds: settingsFields.cache_ttl_seconds.optional(),
  limit: settingsFields.limit.optional(),
  limit_reset: settingsFields.limit_reset.optional(),
  disabled: z.boolean().optional(),
});
export type UpdateKeyInput = z.infer<typeof UpdateKeySchema>;
