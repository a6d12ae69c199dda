import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import type { AdminCommand } from '../admin/admin-commands.ts';
import { checkCommand } from './check-command.ts';
import { printResult } from './print-result.ts';
import { runCommand } from './run-command.ts';

const ImportedSchema = z.object({ data: z.object({ id: z.string(), name: z.string(), imported: z.number() }) });
const ExportedSchema = z.object({ data: z.object({ name: z.string(), cases: z.number() }), jsonl: z.string() });
const ListedSchema = z.object({ data: z.array(z.object({ id: z.string(), name: z.string(), cases: z.number(), updated_at: z.string() })) });

async function readText(path: string): Promise<string> {
  if (path !== '-') return readFile(path, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function run(command: AdminCommand, cli: Command): Promise<unknown> {
  checkCommand(command, cli);
  return runCommand(command);
}

type AccountOption = { account?: string };
const accountOf = (options: AccountOption) => (options.account ? { account: options.account } : {});

/** `junction datasets import | export | list`: evaluation datasets as JSONL files, one case a line. */
export function addDatasetCommands(program: Command): void {
  const datasets = program.command('datasets').description('evaluation datasets: cases as JSONL files');
  datasets
    .command('import')
    .description('add the cases of a JSONL file to a dataset (made if it does not exist); a bad line adds nothing')
    .requiredOption('--name <name>', 'the dataset')
    .requiredOption('--file <path>', 'one case a line: {"input", "reference"?, "expect"?, "tags"?}; "-" reads standard input')
    .option('--account <id>', 'account id (default account when omitted)')
    .option('--json')
    .action(async (options: AccountOption & { name: string; file: string; json?: boolean }, cli: Command) => {
      const text = await readText(options.file);
      const file = options.file === '-' ? 'stdin' : basename(options.file);
      const result = await run({ command: 'datasets.import', name: options.name, text, file, ...accountOf(options) }, cli);
      if (options.json) return printResult(result, true);
      const { data } = ImportedSchema.parse(result);
      process.stdout.write(`imported ${data.imported} case${data.imported === 1 ? '' : 's'} into ${data.name} (${data.id})\n`);
    });
  datasets
    .command('export')
    .description('write a dataset as JSONL, one case a line (standard output without --file)')
    .requiredOption('--name <name>', 'the dataset')
    .option('--file <path>', 'where to write; standard output when omitted')
    .option('--account <id>', 'account id (default account when omitted)')
    .action(async (options: AccountOption & { name: string; file?: string }, cli: Command) => {
      const result = ExportedSchema.parse(await run({ command: 'datasets.export', name: options.name, ...accountOf(options) }, cli));
      if (!options.file) return void process.stdout.write(result.jsonl);
      await writeFile(options.file, result.jsonl);
      process.stderr.write(`wrote ${result.data.cases} case${result.data.cases === 1 ? '' : 's'} of ${result.data.name} to ${options.file}\n`);
    });
  datasets
    .command('list')
    .option('--account <id>', 'account id (default account when omitted)')
    .option('--json')
    .action(async (options: AccountOption & { json?: boolean }, cli: Command) => {
      const result = await run({ command: 'datasets.list', ...accountOf(options) }, cli);
      if (options.json) return printResult(result, true);
      const { data } = ListedSchema.parse(result);
      if (data.length === 0) process.stdout.write('(none)\n');
      else console.table(data);
    });
}
