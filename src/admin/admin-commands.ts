import { z } from 'zod';
import { createAccount, findAccount, listAccounts, setAccountPlan } from '../accounts/account-repository.ts';
import { microsToUsd } from '../core/money.ts';
import { getCreditSummary } from '../credits/credit-repository.ts';
import { grantInCurrency } from '../credits/grant-in-currency.ts';
import { CurrencyCodeSchema, GrantAmountSchema, GrantNoteSchema } from '../credits/grant-input.ts';
import { toKeyObject } from '../gateway/keys/key-view.ts';
import { listKeys, updateKey } from '../keys/key-repository.ts';
import { createKey } from '../keys/key-service.ts';
import { KeyKindSchema } from '../keys/key-kind.ts';
import { EmailSchema, PasswordSchema, RoleSchema } from '../console/contract/session.ts';
import { hashPassword } from '../console/password-hash.ts';
import { addMembership, upsertUser } from '../console/user-repository.ts';
import type { Services } from '../assembly/services.ts';
import { DATASET_COMMAND_SCHEMAS, runDatasetCommand } from './dataset-commands.ts';

/**
 * Operator commands, as data. The CLI runs them against the store directly, or, when
 * a server already holds the embedded store, sends them to that server's admin socket,
 * which runs this same code. Either way one implementation.
 */
const account = z.string().optional();
// Each message completes "<option> expects …": the CLI names the option, the socket the field.
const USD_AMOUNT = 'a USD amount of 0 or more, such as 5 or 2.50';
const usd = z.number({ error: USD_AMOUNT }).nonnegative(USD_AMOUNT).optional();

export const AdminCommandSchema = z.discriminatedUnion('command', [
  z.object({
    command: z.literal('keys.create'),
    account,
    kind: KeyKindSchema,
    name: z.string().min(1, 'a name that is not empty'),
    description: z.string().optional(),
    dailyLimitUsd: usd,
    monthlyLimitUsd: usd,
    totalLimitUsd: usd,
    expiresAt: z.iso.datetime({ offset: true, error: 'an ISO-8601 date and time with its zone, such as 2030-01-31T00:00:00Z' }).optional(),
    allowedModels: z.array(z.string()).optional(),
    rateLimitRpm: z
      .number({ error: 'a whole number of requests per minute above 0' })
      .int('a whole number of requests per minute above 0')
      .positive('a whole number of requests per minute above 0')
      .optional(),
  }),
  z.object({ command: z.literal('keys.list'), account, includeProvisioning: z.boolean().default(true) }),
  z.object({ command: z.literal('keys.set-disabled'), account, id: z.string(), disabled: z.boolean() }),
  z.object({
    command: z.literal('credits.grant'),
    account,
    amount: GrantAmountSchema,
    currency: CurrencyCodeSchema,
    note: GrantNoteSchema.optional(),
  }),
  z.object({ command: z.literal('credits.show'), account }),
  z.object({ command: z.literal('accounts.create'), name: z.string().min(1, 'a name that is not empty'), plan: z.string().default('default') }),
  z.object({ command: z.literal('accounts.list') }),
  z.object({ command: z.literal('users.create'), account, email: EmailSchema, password: PasswordSchema, role: RoleSchema.default('owner') }),
  z.object({ command: z.literal('accounts.set-plan'), account: z.string(), plan: z.string().min(1, 'a plan name') }),
  z.object({ command: z.literal('knowledge.index'), account, allAccounts: z.boolean().default(false) }),
  ...DATASET_COMMAND_SCHEMAS,
]);
export type AdminCommand = z.input<typeof AdminCommandSchema>;

export class AdminError extends Error {}

/**
 * A command's fields checked, each problem as a sentence naming the field and what it
 * expects (the CLI checks first and names its options instead; this covers the socket
 * and other callers), never a zod dump.
 */
export function parseAdminCommand(input: unknown): z.output<typeof AdminCommandSchema> {
  const parsed = AdminCommandSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new AdminError(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'command'} expects ${issue.message}.`).join('\n'));
}

async function resolveAccountId(services: Services, id: string | undefined): Promise<string> {
  if (!id) return services.defaultAccount.id;
  const found = await findAccount(services.db, id);
  if (!found) throw new AdminError(`no account with id ${id}`);
  return found.id;
}

const micros = (usdValue: number | undefined): number | undefined => (usdValue === undefined ? undefined : Math.round(usdValue * 1_000_000));

/** Progress lines a long command reports while it runs (the CLI prints them). */
export type ProgressSink = (progress: Record<string, unknown>) => void;

export async function runAdminCommand(services: Services, input: AdminCommand, onProgress?: ProgressSink): Promise<unknown> {
  const command = parseAdminCommand(input);
  const now = services.now();
  switch (command.command) {
    case 'keys.create': {
      const accountId = await resolveAccountId(services, command.account);
      const created = await createKey(services.db, services.hasher, {
        accountId,
        kind: command.kind,
        settings: {
          name: command.name,
          description: command.description,
          dailyLimitMicros: micros(command.dailyLimitUsd),
          monthlyLimitMicros: micros(command.monthlyLimitUsd),
          totalLimitMicros: micros(command.totalLimitUsd),
          expiresAt: command.expiresAt ? new Date(command.expiresAt) : undefined,
          allowedModels: command.allowedModels,
          rateLimitRpm: command.rateLimitRpm,
        },
      });
      return { key: created.plainKey, data: toKeyObject(created.record, now) };
    }
    case 'keys.list': {
      const accountId = await resolveAccountId(services, command.account);
      const kinds = command.includeProvisioning ? (['model', 'agent', 'provisioning'] as const) : (['model', 'agent'] as const);
      const page = await listKeys(services.db, accountId, { limit: 10_000, offset: 0, kinds: [...kinds] });
      return { data: page.keys.map((key) => toKeyObject(key, now)) };
    }
    case 'keys.set-disabled': {
      const accountId = await resolveAccountId(services, command.account);
      const updated = await updateKey(services.db, accountId, command.id, { disabled: command.disabled }, 'operator');
      if (!updated) throw new AdminError(`no key with id ${command.id} in account ${accountId}`);
      services.keyChanges.changedHere(updated.record.lookupId);
      await services.keyChanges.propagated(updated.changeId);
      return { data: toKeyObject(updated.record, now) };
    }
    case 'credits.grant': {
      const accountId = await resolveAccountId(services, command.account);
      const outcome = await grantInCurrency(services.db, services.config.usdRates, { accountId, currency: command.currency, amount: command.amount, note: command.note });
      if (outcome.kind === 'unknown_currency') {
        throw new AdminError(`no conversion rate for ${command.currency}; configure one (JUNCTION_FX_RATES or currencies: in the config file). Known: ${outcome.known.join(', ')}`);
      }
      const grant = outcome.grant;
      return { data: { id: grant.id, currency: grant.currency, amount: grant.amount, usd_rate: grant.usdRate, usd_equivalent: microsToUsd(grant.usdMicros) } };
    }
    case 'credits.show': {
      const accountId = await resolveAccountId(services, command.account);
      const summary = await getCreditSummary(services.db, accountId);
      return {
        data: {
          account: accountId,
          balance_usd: microsToUsd(summary.grantedMicros - summary.usageMicros),
          total_credits: microsToUsd(summary.grantedMicros),
          total_usage: microsToUsd(summary.usageMicros),
          currencies: summary.byCurrency.map((entry) => ({ currency: entry.currency, amount: entry.amount, usd_equivalent: microsToUsd(entry.usdMicros) })),
        },
      };
    }
    case 'users.create': {
      const accountId = await resolveAccountId(services, command.account);
      const passwordHash = await hashPassword(command.password);
      const user = await services.db.transaction(async (tx) => {
        const created = await upsertUser(tx, command.email, passwordHash);
        await addMembership(tx, created.id, accountId, command.role);
        return created;
      });
      // Never echo the password; the email, account and role identify what was done.
      return { data: { id: user.id, email: user.email, account: accountId, role: command.role } };
    }
    case 'accounts.create': {
      const created = await createAccount(services.db, command.name, command.plan);
      return { data: { id: created.id, name: created.name, plan: created.plan } };
    }
    case 'knowledge.index': {
      const accountIds = command.allAccounts ? (await listAccounts(services.db)).map((entry) => entry.id) : [await resolveAccountId(services, command.account)];
      const reports = [];
      for (const accountId of accountIds) {
        const report = await services.knowledge.sync(accountId, (progress) => onProgress?.({ account: accountId, ...progress }));
        reports.push({ account: accountId, ...report });
      }
      return { data: reports, embedding_model: services.config.embeddingModel ?? null };
    }
    case 'accounts.set-plan': {
      const accountId = await resolveAccountId(services, command.account);
      if (!services.catalog.plans.has(command.plan) && command.plan !== 'default') {
        throw new AdminError(`no plan '${command.plan}' in the config file; known: ${[...services.catalog.plans.keys()].join(', ') || 'default'}`);
      }
      const updated = await setAccountPlan(services.db, accountId, command.plan);
      if (!updated) return { data: null };
      // Returns once every live process serves the new plan (or has been given up on as dead).
      await services.plans.changed(accountId, updated.changeId);
      return { data: { id: updated.account.id, name: updated.account.name, plan: updated.account.plan } };
    }
    case 'datasets.list':
    case 'datasets.import':
    case 'datasets.export':
      return runDatasetCommand(services.db, await resolveAccountId(services, command.account), command);
    case 'accounts.list': {
      const accounts = await listAccounts(services.db);
      return { data: accounts.map((entry) => ({ id: entry.id, name: entry.name, plan: entry.plan, default: entry.isDefault })) };
    }
  }
}
