import { Command, InvalidArgumentError } from 'commander';
import type { AdminCommand } from '../admin/admin-commands.ts';
import { readEnvConfig } from '../config/env-config.ts';
import { migrate } from '../store/migrate.ts';
import { openDatabase } from '../store/open-database.ts';
import { checkCommand } from './check-command.ts';
import { addDatasetCommands } from './datasets-command.ts';
import { addEvalCommand } from './eval-cli.ts';
import { formatIndexResult, indexProgressWriter } from './knowledge-index-output.ts';
import { printResult } from './print-result.ts';
import { runCommand } from './run-command.ts';

/**
 * A number as typed, or NaN for anything else ("abc", "1e3", "0x10", ""), which the
 * command's check then refuses naming the option (commander's own argument errors
 * would print a paragraph and the whole help).
 */
const decimal = (value: string): number => (/^-?\d+(\.\d{1,6})?$/.test(value) ? Number(value) : Number.NaN);

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function execute(command: AdminCommand, json: boolean, cli: Command): Promise<void> {
  checkCommand(command, cli);
  printResult(await runCommand(command), json);
}

export function buildCli(): Command {
  const program = new Command('junction').description('Junction model gateway and Agents API').showHelpAfterError();
  addServerCommands(program);
  addKeyCommands(program);
  addCreditCommands(program);
  const accounts = addAccountCommands(program);
  addKnowledgeCommand(program);
  addDatasetCommands(program);
  addEvalCommand(program);
  accounts
    .command('set-plan <id>')
    .description("change an account's plan (a plan name from the config file)")
    .requiredOption('--plan <plan>')
    .option('--json')
    .action(async (id: string, options: { plan: string; json?: boolean }, cli: Command) => execute({ command: 'accounts.set-plan', account: id, plan: options.plan }, options.json === true, cli));
  addUserCommand(program);
  accounts
    .command('list')
    .option('--json')
    .action(async (options: { json?: boolean }, cli: Command) => execute({ command: 'accounts.list' }, options.json === true, cli));
  return program;
}

/** serve, doctor and migrate: the commands that run or check the server itself. */
function addServerCommands(program: Command): void {
  program
    .command('serve')
    .description('start the server (same as npm start)')
    .option('--workers <n>', 'processes sharing the port: a number or "auto" (one per core); needs DATABASE_URL when above 1')
    .action(async (options: { workers?: string }) => {
      if (options.workers !== undefined) process.env.JUNCTION_WORKERS = options.workers;
      await import('../main.ts');
    });

  program
    .command('doctor')
    .description('check configuration, database and pgvector, providers and agent files; print each problem with its fix')
    .option('--json')
    .action(async (options: { json?: boolean }) => {
      const { runDoctor } = await import('../doctor/run-doctor.ts');
      const results = await runDoctor(process.env);
      if (options.json) process.stdout.write(`${JSON.stringify({ ok: results.every((result) => result.ok), results }, null, 2)}\n`);
      // A refused file lists one problem a line: they are indented under their FAIL line.
      else
        for (const result of results)
          process.stdout.write(`${result.ok ? 'ok  ' : 'FAIL'}  ${result.name}: ${result.detail.replaceAll('\n', '\n      ')}${result.fix ? `\n      fix: ${result.fix}` : ''}\n`);
      if (!results.every((result) => result.ok)) process.exitCode = 1;
    });

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const db = await openDatabase(readEnvConfig({ LOG_LEVEL: 'silent', ...process.env }));
      try {
        const applied = await migrate(db);
        process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
      } finally {
        await db.close();
      }
    });
}

function addKeyCommands(program: Command): void {
  const keys = program.command('keys').description('create, list and disable API keys');
  keys
    .command('create')
    .requiredOption('--kind <kind>', 'model | provisioning | agent')
    .requiredOption('--name <name>', 'a name to recognise the key by')
    .option('--description <text>')
    .option('--daily-limit-usd <usd>', 'spend limit per UTC day')
    .option('--monthly-limit-usd <usd>', 'spend limit per UTC calendar month')
    .option('--total-limit-usd <usd>', 'lifetime spend limit')
    .option('--expires-at <iso>', 'expiry, ISO-8601 (UTC)')
    .option('--allowed-models <ids>', 'comma-separated model ids this key may use')
    .option('--rate-limit-rpm <n>', 'requests per minute')
    .option('--account <id>', 'account id (default account when omitted)')
    .option('--json', 'print one JSON object; the plain key is in field "key"')
    .action(async (options: Record<string, string | boolean | undefined>, cli: Command) => {
      const kind = String(options.kind);
      if (kind !== 'model' && kind !== 'provisioning' && kind !== 'agent') {
        throw new InvalidArgumentError(`--kind must be model, provisioning or agent, not ${kind}`);
      }
      await execute(
        {
          command: 'keys.create',
          kind,
          name: String(options.name),
          ...(options.description !== undefined && { description: String(options.description) }),
          ...(options.dailyLimitUsd !== undefined && { dailyLimitUsd: decimal(String(options.dailyLimitUsd)) }),
          ...(options.monthlyLimitUsd !== undefined && { monthlyLimitUsd: decimal(String(options.monthlyLimitUsd)) }),
          ...(options.totalLimitUsd !== undefined && { totalLimitUsd: decimal(String(options.totalLimitUsd)) }),
          ...(options.expiresAt !== undefined && { expiresAt: String(options.expiresAt) }),
          ...(options.allowedModels !== undefined && {
            allowedModels: String(options.allowedModels)
              .split(',')
              .map((id) => id.trim())
              .filter(Boolean),
          }),
          ...(options.rateLimitRpm !== undefined && { rateLimitRpm: decimal(String(options.rateLimitRpm)) }),
          ...(options.account !== undefined && { account: String(options.account) }),
        },
        options.json === true,
        cli,
      );
    });
  keys
    .command('list')
    .option('--account <id>')
    .option('--json')
    .action(async (options: { account?: string; json?: boolean }, cli: Command) => execute({ command: 'keys.list', ...(options.account && { account: options.account }) }, options.json === true, cli));
  for (const [name, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    keys
      .command(`${name} <id>`)
      .description(`${name} a key (takes effect on the next request)`)
      .option('--account <id>')
      .option('--json')
      .action(async (id: string, options: { account?: string; json?: boolean }, cli: Command) =>
        execute({ command: 'keys.set-disabled', id, disabled, ...(options.account && { account: options.account }) }, options.json === true, cli),
      );
  }
}

function addCreditCommands(program: Command): void {
  const credits = program.command('credits').description('grant and show account credit');
  credits
    .command('grant')
    .requiredOption('--amount <n>', 'amount in the given currency')
    .requiredOption('--currency <code>', 'USD, EUR, GBP or another configured currency')
    .option('--note <text>')
    .option('--account <id>')
    .option('--json')
    .action(async (options: { amount: string; currency: string; note?: string; account?: string; json?: boolean }, cli: Command) =>
      execute(
        {
          command: 'credits.grant',
          amount: options.amount,
          currency: options.currency.toUpperCase(),
          ...(options.note && { note: options.note }),
          ...(options.account && { account: options.account }),
        },
        options.json === true,
        cli,
      ),
    );
  credits
    .command('show')
    .option('--account <id>')
    .option('--json')
    .action(async (options: { account?: string; json?: boolean }, cli: Command) =>
      execute({ command: 'credits.show', ...(options.account && { account: options.account }) }, options.json === true, cli),
    );
}

/** The accounts command with its create subcommand; buildCli adds the rest in help order. */
function addAccountCommands(program: Command): Command {
  const accounts = program.command('accounts').description('accounts of this deployment');
  accounts
    .command('create')
    .requiredOption('--name <name>')
    .option('--plan <plan>', 'plan name from the config file', 'default')
    .option('--json')
    .action(async (options: { name: string; plan: string; json?: boolean }, cli: Command) =>
      execute({ command: 'accounts.create', name: options.name, plan: options.plan }, options.json === true, cli),
    );
  return accounts;
}

function addKnowledgeCommand(program: Command): void {
  program
    .command('knowledge')
    .description('knowledge collections for agents')
    .command('index')
    .description('index knowledge/ incrementally (unchanged chunks are not re-embedded)')
    .option('--account <id>', 'account id (default account when omitted)')
    .option('--all-accounts', 'index for every account')
    .option('--json')
    .action(async (options: { account?: string; allAccounts?: boolean; json?: boolean }) => {
      const progress = options.json ? undefined : indexProgressWriter(process.stderr);
      const result = await runCommand({ command: 'knowledge.index', allAccounts: options.allAccounts === true, ...(options.account && { account: options.account }) }, progress?.write);
      progress?.end();
      if (options.json) printResult(result, true);
      else process.stdout.write(formatIndexResult(result));
    });
}

const USER_ROLES = ['owner', 'admin', 'member'] as const;

function addUserCommand(program: Command): void {
  program
    .command('users')
    .description('people who sign in to the console')
    .command('create')
    .requiredOption('--email <email>')
    .requiredOption('--password-stdin', 'read the password from standard input (never from the command line)')
    .option('--account <id>', 'account id (default: the default account)')
    .option('--role <role>', 'owner | admin | member', 'owner')
    .option('--json')
    .action(async (options: { email: string; account?: string; role: string; json?: boolean }, cli: Command) => {
      const password = (await readStdin()).replace(/\r?\n$/, '');
      const role = USER_ROLES.find((known) => known === options.role);
      if (!role) throw new Error(`--role must be owner, admin or member, not '${options.role}'`);
      await execute({ command: 'users.create', email: options.email, password, role, ...(options.account && { account: options.account }) }, options.json === true, cli);
    });
}

try {
  await buildCli().parseAsync(process.argv);
} catch (error) {
  for (const line of (error as Error).message.split('\n')) process.stderr.write(`junction: ${line}\n`);
  process.exitCode = 1;
}
