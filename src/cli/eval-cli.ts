import { type Command, InvalidArgumentError } from 'commander';

const number = (name: string, check: (value: number) => boolean, expects: string) => (text: string) => {
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!check(value)) throw new InvalidArgumentError(`${name} expects ${expects}, not '${text}'`);
  return value;
};

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
    .option('--json', 'print the report as JSON')
    .action(
      async (options: { agent: string; dataset: string; version: string; baseline?: string; failBelow?: number; concurrency?: number; maxCostUsd?: number; account?: string; json?: boolean }) => {
        const { runEval } = await import('./eval-command.ts');
        const { formatEvalReport } = await import('./eval-output.ts');
        const report = await runEval(options);
        process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatEvalReport(report));
        if (!report.passed) process.exitCode = 1;
      },
    );
}
