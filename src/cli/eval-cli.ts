import { type Command, InvalidArgumentError } from 'commander';
import type { EvalRunOptions } from './eval-command.ts';

const number = (name: string, check: (value: number) => boolean, expects: string) => (text: string) => {
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!check(value)) throw new InvalidArgumentError(`${name} expects ${expects}, not '${text}'`);
  return value;
};

/** On a server: the agent key comes from the environment, never the command line (where `ps` shows it). */
async function remotely(options: EvalRunOptions & { url: string; account?: string }) {
  const key = process.env.JUNCTION_AGENT_KEY;
  if (!key) throw new InvalidArgumentError('--url needs an agent key in JUNCTION_AGENT_KEY');
  if (options.account !== undefined) throw new InvalidArgumentError('--account does not go with --url: the agent key decides the account');
  const { runEvalRemote } = await import('./eval-remote.ts');
  return runEvalRemote({ ...options, key });
}

/** `junction eval run`: the exit code is the gate (0 passes, 1 fails), for a team's CI. */
export function addEvalCommand(program: Command): void {
  program
    .command('eval')
    .description('evaluate agent versions on datasets')
    .command('run')
    .description('run a version of an agent over a dataset (each case a billed agent run), optionally against a baseline version')
    .requiredOption('--agent <id>', 'the agent')
    .requiredOption('--dataset <name>', 'the dataset, by name or id')
    .option('--version <version>', 'the version to evaluate: draft (the newest), published, latest or a number', 'draft')
    .option('--baseline <version>', 'compare with this version case by case (e.g. published)')
    .option(
      '--fail-below <score>',
      'exit 1 when the mean score is below this (0 to 1)',
      number('--fail-below', (value) => value >= 0 && value <= 1, 'a score from 0 to 1'),
    )
    .option(
      '--concurrency <n>',
      'cases run at once (default 4)',
      number('--concurrency', (value) => Number.isInteger(value) && value >= 1 && value <= 16, 'a whole number from 1 to 16'),
    )
    .option(
      '--max-cost-usd <usd>',
      'stop starting cases once the spend could pass this',
      number('--max-cost-usd', (value) => value > 0, 'a USD amount above 0'),
    )
    .option('--account <id>', 'account id (default account when omitted)')
    .option('--url <url>', 'run it on this Junction server instead, with the agent key in JUNCTION_AGENT_KEY (for CI without the store)')
    .option('--json', 'print the report as JSON')
    .action(
      async (options: {
        agent: string;
        dataset: string;
        version: string;
        baseline?: string;
        failBelow?: number;
        concurrency?: number;
        maxCostUsd?: number;
        account?: string;
        url?: string;
        json?: boolean;
      }) => {
        const { formatEvalReport } = await import('./eval-output.ts');
        const report = options.url === undefined ? await (await import('./eval-command.ts')).runEval(options) : await remotely({ ...options, url: options.url });
        process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatEvalReport(report));
        if (!report.passed) process.exitCode = 1;
      },
    );
}
