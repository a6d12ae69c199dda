import { z } from 'zod';
import { formatCaseLine, parseCaseLines } from '../evaluation/case-lines.ts';
import { createDatasetRepository, type DatasetRepository } from '../evaluation/dataset-repository.ts';
import { DatasetNameSchema } from '../evaluation/dataset-fields.ts';
import type { Database } from '../store/database.ts';

/** An error the operator can act on: the CLI prints its message and exits non-zero. */
export class DatasetCommandError extends Error {}

const account = z.string().optional();

/** `junction datasets …`: the operator's import, export and list, over the same repository as the console. */
export const DATASET_COMMAND_SCHEMAS = [
  z.object({ command: z.literal('datasets.list'), account }),
  z.object({
    command: z.literal('datasets.import'),
    account,
    name: DatasetNameSchema,
    /** The JSONL text: the CLI reads the file, so a server behind the admin socket never opens a path it is given. */
    text: z.string(),
    file: z.string().max(200).optional(),
  }),
  z.object({ command: z.literal('datasets.export'), account, name: DatasetNameSchema }),
] as const;

const DatasetCommandSchema = z.discriminatedUnion('command', DATASET_COMMAND_SCHEMAS);
export type DatasetCommand = z.output<typeof DatasetCommandSchema>;

async function exportText(datasets: DatasetRepository, accountId: string, datasetId: string): Promise<string> {
  const cases = await datasets.listCases(accountId, datasetId);
  return cases.map((entry) => `${formatCaseLine(entry)}\n`).join('');
}

export async function runDatasetCommand(db: Database, accountId: string, command: DatasetCommand): Promise<unknown> {
  const datasets = createDatasetRepository(db);
  switch (command.command) {
    case 'datasets.list': {
      const found = await datasets.list(accountId);
      return { data: found.map((dataset) => ({ id: dataset.id, name: dataset.name, cases: dataset.caseCount, updated_at: dataset.updatedAt.toISOString() })) };
    }
    case 'datasets.import': {
      const parsed = parseCaseLines(command.text, { file: command.file ?? 'stdin' });
      if (!parsed.ok) throw new DatasetCommandError(`${command.file ?? 'the file'}: ${parsed.message}`);
      // The dataset is made by its first import, in the same transaction as its cases.
      const result = await db.transaction(async (tx) => {
        const repository = createDatasetRepository(tx);
        const dataset = (await repository.getByName(accountId, command.name)) ?? (await repository.create(accountId, { name: command.name }));
        const added = await repository.addCases(accountId, dataset.id, parsed.cases);
        return { id: dataset.id, added: added.length };
      });
      return { data: { id: result.id, name: command.name, imported: result.added, account: accountId } };
    }
    case 'datasets.export': {
      const dataset = await datasets.getByName(accountId, command.name);
      if (!dataset) throw new DatasetCommandError(`no dataset named '${command.name}' in account ${accountId}`);
      return { data: { id: dataset.id, name: dataset.name, cases: dataset.caseCount }, jsonl: await exportText(datasets, accountId, dataset.id) };
    }
  }
}
