import { z } from 'zod';
import { usdToMicros } from '../../core/money.ts';
import type { KeySettings } from '../../keys/key-record.ts';
import type { LimitWindow } from './key-view.ts';

const usdAmount = z
  .union([z.number().nonnegative().max(1e9), z.string().regex(/^\d+(\.\d{1,6})?$/, 'a decimal USD amount')])
  .transform((value, context) => {
    try {
      return usdToMicros(value);
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

/** PostgreSQL text cannot hold NUL; the JSON parser already refused lone surrogates. */
const storableText = (value: string): boolean => !value.includes('\u0000');
const STORABLE_TEXT_MESSAGE = 'must not contain NUL characters';

const settingsFields = {
  name: z.string().trim().min(1).max(200).refine(storableText, STORABLE_TEXT_MESSAGE),
  description: z.string().max(2000).refine(storableText, STORABLE_TEXT_MESSAGE).nullable(),
  daily_limit_usd: usdAmount.nullable(),
  monthly_limit_usd: usdAmount.nullable(),
  total_limit_usd: usdAmount.nullable(),
  expires_at: z.iso.datetime({ offset: true }).transform((text) => new Date(text)).nullable(),
  allowed_models: z.array(z.string().min(1).max(200)).max(1000).nullable(),
  rate_limit_rpm: z.number().int().positive().max(1_000_000).nullable(),
  // OpenRouter's names: one limit whose reset period picks the window.
  limit: usdAmount.nullable(),
  limit_reset: z.enum(['daily', 'monthly']).nullable(),
};

export const CreateKeySchema = z.strictObject({
  ...settingsFields,
  kind: z.enum(['model', 'agent']).default('model'),
  description: settingsFields.description.optional(),
  daily_limit_usd: settingsFields.daily_limit_usd.optional(),
  monthly_limit_usd: settingsFields.monthly_limit_usd.optional(),
  total_limit_usd: settingsFields.total_limit_usd.optional(),
  expires_at: settingsFields.expires_at.optional(),
  allowed_models: settingsFields.allowed_models.optional(),
  rate_limit_rpm: settingsFields.rate_limit_rpm.optional(),
  limit: settingsFields.limit.optional(),
  limit_reset: settingsFields.limit_reset.optional(),
});

export const UpdateKeySchema = z.strictObject({
  name: settingsFields.name.optional(),
  description: settingsFields.description.optional(),
  daily_limit_usd: settingsFields.daily_limit_usd.optional(),
  monthly_limit_usd: settingsFields.monthly_limit_usd.optional(),
  total_limit_usd: settingsFields.total_limit_usd.optional(),
  expires_at: settingsFields.expires_at.optional(),
  allowed_models: settingsFields.allowed_models.optional(),
  rate_limit_rpm: settingsFields.rate_limit_rpm.optional(),
  limit: settingsFields.limit.optional(),
  limit_reset: settingsFields.limit_reset.optional(),
  disabled: z.boolean().optional(),
});

type KeyInput = z.infer<typeof UpdateKeySchema>;

export class KeyInputConflict extends Error {
  constructor(readonly param: string, message: string) {
    super(message);
  }
}

/**
 * Wire fields → KeySettings. `undefined` means "not sent" (kept on PATCH), `null`
 * means "clear". OpenRouter's `limit` lands in the window its `limit_reset` names;
 * without one, in `currentWindow`: on PATCH the window the key's `limit` shows now
 * (`{"limit": 7}` raises a monthly limit, not adds a total one), on create the total.
 */
export function toKeySettings(input: KeyInput, currentWindow: LimitWindow = 'total'): KeySettings {
  const settings: KeySettings = {
    name: input.name,
    description: input.description,
    dailyLimitMicros: input.daily_limit_usd,
    monthlyLimitMicros: input.monthly_limit_usd,
    totalLimitMicros: input.total_limit_usd,
    expiresAt: input.expires_at,
    allowedModels: input.allowed_models === undefined || input.allowed_models === null ? input.allowed_models : [...new Set(input.allowed_models)],
    rateLimitRpm: input.rate_limit_rpm,
    disabled: input.disabled,
  };
  if (input.limit !== undefined) {
    const window = input.limit_reset === undefined ? currentWindow : (input.limit_reset ?? 'total');
    const field = window === 'daily' ? 'dailyLimitMicros' : window === 'monthly' ? 'monthlyLimitMicros' : 'totalLimitMicros';
    const wireName = window === 'daily' ? 'daily_limit_usd' : window === 'monthly' ? 'monthly_limit_usd' : 'total_limit_usd';
    if (settings[field] !== undefined) {
      throw new KeyInputConflict('limit', `Send either 'limit' or '${wireName}', not both.`);
    }
    settings[field] = input.limit;
  } else if (input.limit_reset !== undefined) {
    throw new KeyInputConflict('limit_reset', "'limit_reset' only applies together with 'limit'.");
  }
  return settings;
}
