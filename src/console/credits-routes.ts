import type { FastifyInstance } from 'fastify';
import { monthlySpend } from '../billing/usage-rollups.ts';
import { JunctionError } from '../core/errors.ts';
import { microsToUsd } from '../core/money.ts';
import { type AccountBalance, type CreditGrant, findAccountBalance, getCreditSummary, listAccountBalances, listGrants } from '../credits/credit-repository.ts';
import { grantInCurrency } from '../credits/grant-in-currency.ts';
import { parseInput } from '../http/parse-body.ts';
import type { Database } from '../store/database.ts';
import { accountReadsOf } from '../store/reporting-reads.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import type { CreditAccount, CreditGrantView, Credits } from './contract/credits.ts';
import { GrantInputSchema } from './contract/credits.ts';
import { isOperator, requireOperator } from './operator.ts';

export type CreditsRoutesDeps = {
  db: Database;
  now: () => Date;
  settle: () => Promise<void>;
  defaultAccountId: () => string;
  /** USD rates in force (read per request: the config file's `currencies:` arrive after the routes are registered). */
  usdRates: () => Readonly<Record<string, string>>;
};

const GRANTS_SHOWN = 100;
const MONTHS_SHOWN = 12;
/** What the CLI's grants are attributed to (their ledger rows name nobody). */
const CLI_GRANTOR = 'operator (CLI)';

const HOW_TO_GET_MORE =
  "Credit is added by this Junction server's operators (the owners of its default account, who set it up). Ask them to grant credit to this account, naming it and its id; they can do it from their own Credits page.";

const grantView = (grant: CreditGrant, showGrantor: boolean): CreditGrantView => ({
  id: grant.id,
  currency: grant.currency,
  amount: grant.amount,
  usd_rate: grant.usdRate,
  usd: microsToUsd(grant.usdMicros),
  note: grant.note,
  granted_by: showGrantor ? (grant.grantedBy ?? CLI_GRANTOR) : null,
  created_at: grant.createdAt.toISOString(),
});

const accountView = (account: AccountBalance): CreditAccount => ({
  id: account.id,
  name: account.name,
  default: account.isDefault,
  balance_usd: microsToUsd(account.grantedMicros - account.usageMicros),
});

/**
 * The Credits page: every person sees their account's balance, grants and spend; the
 * server's operators also list every account and grant credit to any of them, by the
 * same rule as `junction credits grant` (src/credits/grant-in-currency.ts), recorded with
 * the granting person's email.
 */
export async function creditsRoutes(app: FastifyInstance, deps: CreditsRoutesDeps): Promise<void> {
  const operator = requireOperator(deps.db, deps.now, deps.defaultAccountId);

  app.get('/credits', { preHandler: requireConsoleUser(deps.db, deps.now) }, async (request): Promise<Credits> => {
    const caller = consoleCaller(request);
    await deps.settle();
    const [summary, grants, months, canGrant] = await accountReadsOf(deps.db, caller.accountId).session(
      async (reads) =>
        [
          await getCreditSummary(reads, caller.accountId),
          await listGrants(reads, caller.accountId, GRANTS_SHOWN),
          await monthlySpend(reads, caller.accountId, MONTHS_SHOWN),
          await isOperator(reads, caller.user.id, deps.defaultAccountId()),
        ] as const,
    );
    return {
      balance: {
        usd: microsToUsd(summary.grantedMicros - summary.usageMicros),
        granted_usd: microsToUsd(summary.grantedMicros),
        used_usd: microsToUsd(summary.usageMicros),
        reserved_usd: microsToUsd(summary.reservedMicros),
        by_currency: summary.byCurrency.map((entry) => ({ currency: entry.currency, amount: entry.amount, usd: microsToUsd(Number(entry.usdMicros)) })),
      },
      grants: grants.map((grant) => grantView(grant, canGrant)),
      spend_by_month: months.map((month) => ({ month: month.month, requests: month.requests, spend_usd: microsToUsd(month.spend) })),
      operator: canGrant,
      currencies: Object.keys(deps.usdRates()),
      how_to_get_more: HOW_TO_GET_MORE,
    };
  });

  app.get('/credits/accounts', { preHandler: operator }, async () => {
    await deps.settle();
    return { data: (await listAccountBalances(deps.db)).map(accountView) };
  });

  app.post('/credits/grants', { preHandler: operator }, async (request, reply) => {
    const input = parseInput(GrantInputSchema, request.body);
    const account = await findAccountBalance(deps.db, input.account_id);
    if (!account) throw new JunctionError('not_found', 'No such account on this server.', { param: 'account_id' });
    const outcome = await grantInCurrency(deps.db, deps.usdRates(), {
      accountId: account.id,
      currency: input.currency,
      amount: input.amount,
      note: input.note || undefined,
      grantedBy: consoleCaller(request).user.email,
    });
    if (outcome.kind === 'unknown_currency') {
      throw new JunctionError('invalid_request', `No conversion rate for ${input.currency}: grant in ${outcome.known.join(', ')}, or configure a rate.`, { param: 'currency' });
    }
    const after = (await findAccountBalance(deps.db, account.id)) ?? account;
    request.log.info({ account: account.id, grant: outcome.grant.id, usd_micros: outcome.grant.usdMicros }, 'credit granted from the console');
    return reply.status(201).send({ data: grantView(outcome.grant, true), account: accountView(after) });
  });
}
