import type { FastifyInstance } from 'fastify';
import { microsToUsd } from '../core/money.ts';
import { getCreditSummary } from '../credits/credit-repository.ts';
import type { KeyAuthenticator } from '../keys/key-authenticator.ts';
import { KeyKindSchema } from '../keys/key-kind.ts';
import { findKeyByLookupId } from '../keys/key-repository.ts';
import { authenticatedKey, requireKey } from '../http/auth-hook.ts';
import type { Database } from '../store/database.ts';
import { toKeyObject } from './keys/key-view.ts';

export type AccountRoutesDeps = { db: Database; authenticator: KeyAuthenticator; now: () => Date };

const trimDecimal = (text: string): string => text.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');

/** `/v1/key` (the calling model key's own status) and `/v1/credits` (the account's balance). */
export async function accountRoutes(app: FastifyInstance, deps: AccountRoutesDeps): Promise<void> {
  app.get(
    '/key',
    // An expired or disabled key may still read its own state: that is how a client learns why it fails.
    { preHandler: requireKey(deps.authenticator, { kinds: ['model'], allowInactive: true }) },
    async (request) => {
      const caller = authenticatedKey(request);
      // Fresh from the database: spend counters in the auth cache are not kept current.
      const fresh = (await findKeyByLookupId(deps.db, caller.lookupId)) ?? caller;
      return { data: toKeyObject(fresh, deps.now()) };
    },
  );

  app.get('/credits', { preHandler: requireKey(deps.authenticator, { kinds: KeyKindSchema.options }) }, async (request) => {
    const caller = authenticatedKey(request);
    const summary = await getCreditSummary(deps.db, caller.accountId);
    return {
      data: {
        balance_usd: microsToUsd(summary.grantedMicros - summary.usageMicros),
        total_credits: microsToUsd(summary.grantedMicros),
        total_usage: microsToUsd(summary.usageMicros),
        currencies: summary.byCurrency.map((entry) => ({
          currency: entry.currency,
          amount: trimDecimal(entry.amount),
          usd_equivalent: microsToUsd(entry.usdMicros),
        })),
      },
    };
  });
}
