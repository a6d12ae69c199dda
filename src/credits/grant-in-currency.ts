import type { Database } from '../store/database.ts';
import { type CreditGrant, grantCredits } from './credit-repository.ts';

export type GrantRequest = { accountId: string; currency: string; amount: string; note?: string | undefined; grantedBy?: string | undefined };

/** A grant made, or refused because no rate converts its currency to USD (the known currencies listed). */
export type GrantOutcome = { kind: 'granted'; grant: CreditGrant } | { kind: 'unknown_currency'; known: string[] };

/**
 * How credit is granted, whoever grants it (the CLI, the admin socket, the console's
 * Credits page): at the rate configured for the currency now, recorded with the grant.
 */
export async function grantInCurrency(db: Database, usdRates: Readonly<Record<string, string>>, request: GrantRequest): Promise<GrantOutcome> {
  const usdRate = usdRates[request.currency];
  if (!usdRate) return { kind: 'unknown_currency', known: Object.keys(usdRates) };
  return { kind: 'granted', grant: await grantCredits(db, { ...request, usdRate }) };
}
