import { z } from 'zod';

/**
 * USD value of one unit of each currency credits may be granted in. Rates come from
 * config (`currencies:` in junction.yaml or JUNCTION_FX_RATES="EUR=1.08,GBP=1.27");
 * these defaults only make a fresh install work. A grant records the rate it used, so
 * changing a rate later never rewrites past balances.
 */
export const DEFAULT_USD_RATES: Readonly<Record<string, string>> = { USD: '1', EUR: '1.08', GBP: '1.27' };

export const CurrencyRatesSchema = z.record(
  z.string().regex(/^[A-Z]{3}$/, 'currency codes are three capital letters (ISO 4217)'),
  z.union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?$/)]).transform(String),
);

/** Parses `EUR=1.08,GBP=1.27` (the env form). */
export function parseRatesEnv(text: string): Record<string, string> {
  const entries = text
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const [code, rate] = pair.split('=').map((part) => part.trim());
      return [code ?? '', rate ?? ''] as const;
    });
  return CurrencyRatesSchema.parse(Object.fromEntries(entries));
}
