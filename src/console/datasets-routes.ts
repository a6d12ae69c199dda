import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { JunctionError } from '../core/errors.ts';
import { caseFromRun } from '../evaluation/case-from-run.ts';
import { formatCaseLine, parseCaseLines } from '../evaluation/case-lines.ts';
import { createDatasetRepository, type Dataset, type DatasetRepository, type EvalCase } from '../evaluation/dataset-repository.ts';
import { parseInput } from '../http/parse-body.ts';
import type { Database } from '../store/database.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import {
  AddCaseSchema,
  CaseFromRunSchema,
  CaseListQuerySchema,
  type CasePage,
  CaseParamsSchema,
  type CaseView,
  CreateDatasetSchema,
  DatasetParamsSchema,
  type DatasetView,
  EditCaseSchema,
  IMPORT_LIMIT_BYTES,
  ImportQuerySchema,
  type ImportResult,
  JSONL_CONTENT_TYPES,
} from './contract/datasets.ts';

export type ConsoleDatasetsDeps = {
  db: Database;
  now: () => Date;
  /** Writes what is queued (run steps, usage rows), so a run answered a moment ago can be added. */
  settle: () => Promise<void>;
};

/** Cases an export reads per statement while it streams. */
const EXPORT_PAGE = 500;

export const toDatasetView = (dataset: Dataset): DatasetView => ({
  id: dataset.id,
  name: dataset.name,
  description: dataset.description,
  case_count: dataset.caseCount,
  created_at: dataset.createdAt.toISOString(),
  updated_at: dataset.updatedAt.toISOString(),
});

export const toCaseView = (entry: EvalCase): CaseView => ({
  id: entry.id,
  dataset_id: entry.datasetId,
  input: entry.input,
  reference: entry.reference,
  expect: entry.expect,
  tags: entry.tags,
  source: entry.source,
  created_at: entry.createdAt.toISOString(),
  updated_at: entry.updatedAt.toISOString(),
});

const datasetNotFound = (id: string) => new JunctionError('not_found', `No dataset '${id}' in this account.`);
const caseNotFound = (id: string) => new JunctionError('not_found', `No case '${id}' in this dataset.`);

/** Every case of a dataset as JSONL, read a page at a time while the body is sent. */
async function* exportLines(datasets: DatasetRepository, accountId: string, datasetId: string): AsyncGenerator<string> {
  let after: string | null = null;
  for (;;) {
    const page = await datasets.listCases(accountId, datasetId, { after, limit: EXPORT_PAGE });
    if (page.length > 0) yield `${page.map(formatCaseLine).join('\n')}\n`;
    const last = page.at(-1);
    if (!last || page.length < EXPORT_PAGE) return;
    after = last.id;
  }
}

/**
 * Datasets of evaluation cases in the console: members read and export, admins and owners
 * create, import, edit and delete, and add cases from the account's own runs. A path names
 * a dataset by its id or its name, always within the session's account.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a route table; each route is short and reads best beside the others
export async function consoleDatasetsRoutes(app: FastifyInstance, deps: ConsoleDatasetsDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);
  const editor = requireConsoleUser(deps.db, deps.now, 'admin');
  const datasets = createDatasetRepository(deps.db);
  app.addContentTypeParser([...JSONL_CONTENT_TYPES], { parseAs: 'string', bodyLimit: IMPORT_LIMIT_BYTES }, (_request, body, done) => done(null, body));

  const mustFind = async (accountId: string, id: string): Promise<Dataset> => {
    const found = await datasets.find(accountId, id);
    if (!found) throw datasetNotFound(id);
    return found;
  };

  app.get('/datasets', { preHandler: reader }, async (request) => ({ data: (await datasets.list(consoleCaller(request).accountId)).map(toDatasetView) }));

  app.post('/datasets', { preHandler: editor }, async (request, reply) => {
    const input = parseInput(CreateDatasetSchema, request.body);
    const created = await datasets.create(consoleCaller(request).accountId, input);
    return reply.status(201).send(toDatasetView(created));
  });

  app.get('/datasets/:id', { preHandler: reader }, async (request): Promise<DatasetView> => {
    const { id } = parseInput(DatasetParamsSchema, request.params, 'path');
    return toDatasetView(await mustFind(consoleCaller(request).accountId, id));
  });

  app.delete('/datasets/:id', { preHandler: editor }, async (request) => {
    const { id } = parseInput(DatasetParamsSchema, request.params, 'path');
    const accountId = consoleCaller(request).accountId;
    const dataset = await mustFind(accountId, id);
    if (!(await datasets.remove(accountId, dataset.id))) throw datasetNotFound(id);
    return { deleted: true };
  });

  app.get('/datasets/:id/cases', { preHandler: reader }, async (request): Promise<CasePage> => {
    const { id } = parseInput(DatasetParamsSchema, request.params, 'path');
    const query = parseInput(CaseListQuerySchema, request.query, 'query string');
    const accountId = consoleCaller(request).accountId;
    const dataset = await mustFind(accountId, id);
    const page = await datasets.listCases(accountId, dataset.id, { after: query.cursor ?? null, limit: query.limit + 1 });
    const shown = page.slice(0, query.limit);
    return { data: shown.map(toCaseView), next_cursor: page.length > query.limit ? (shown.at(-1)?.id ?? null) : null };
  });

  app.post('/datasets/:id/cases', { preHandler: editor }, async (request, reply) => {
    const { id } = parseInput(DatasetParamsSchema, request.params, 'path');
    const input = parseInput(AddCaseSchema, request.body);
    const accountId = consoleCaller(request).accountId;
    const dataset = await mustFind(accountId, id);
    const [added] = await datasets.addCases(accountId, dataset.id, [{ ...input, source: null }]);
    if (!added) throw datasetNotFound(id);
    return reply.status(201).send(toCaseView(added));
  });

  app.post('/datasets/:id/cases/from-run', { preHandler: editor }, async (request, reply) => {
    const { id } = parseInput(DatasetParamsSchema, request.params, 'path');
    const body = parseInput(CaseFromRunSchema, request.body);
    const accountId = consoleCaller(request).accountId;
    const dataset = await mustFind(accountId, id);
    await deps.settle();
    const taken = await caseFromRun(deps.db, accountId, { responseId: body.response_id, runId: body.run_id, conversationId: body.conversation_id, itemId: body.item_id });
    if (!taken.ok && taken.reason === 'not_found') {
      const named = body.item_id ?? body.response_id ?? body.run_id;
      throw new JunctionError('not_found', `No stored run, response or conversation item '${named}' in this account.`);
    }
    if (!taken.ok) throw new JunctionError('invalid_request', 'That turn has no user text to ask again, so it cannot be a case.', { param: 'item_id' });
    const [added] = await datasets.addCases(accountId, dataset.id, [{ ...taken.value, expect: null, tags: body.tags ?? [] }]);
    if (!added) throw datasetNotFound(id);
    return reply.status(201).send(toCaseView(added));
  });

  app.patch('/datasets/:id/cases/:caseId', { preHandler: editor }, async (request) => {
    const { id, caseId } = parseInput(CaseParamsSchema, request.params, 'path');
    const patch = parseInput(EditCaseSchema, request.body);
    const accountId = consoleCaller(request).accountId;
    const dataset = await mustFind(accountId, id);
    const updated = await datasets.updateCase(accountId, dataset.id, caseId, patch);
    if (!updated) throw caseNotFound(caseId);
    return toCaseView(updated);
  });

  app.delete('/datasets/:id/cases/:caseId', { preHandler: editor }, async (request) => {
    const { id, caseId } = parseInput(CaseParamsSchema, request.params, 'path');
    const accountId = consoleCaller(request).accountId;
    const dataset = await mustFind(accountId, id);
    if (!(await datasets.removeCase(accountId, dataset.id, caseId))) throw caseNotFound(caseId);
    return { deleted: true };
  });

  app.get('/datasets/:id/export', { preHandler: reader }, async (request, reply) => {
    const { id } = parseInput(DatasetParamsSchema, request.params, 'path');
    const accountId = consoleCaller(request).accountId;
    const dataset = await mustFind(accountId, id);
    return reply
      .header('content-type', 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="${dataset.name}.jsonl"`)
      .send(Readable.from(exportLines(datasets, accountId, dataset.id)));
  });

  app.post('/datasets/:id/import', { preHandler: editor, bodyLimit: IMPORT_LIMIT_BYTES }, async (request, reply): Promise<ImportResult> => {
    const { id } = parseInput(DatasetParamsSchema, request.params, 'path');
    const { file } = parseInput(ImportQuerySchema, request.query, 'query string');
    if (typeof request.body !== 'string') {
      throw new JunctionError('unsupported_media_type', `Send the cases as JSON Lines (content type ${JSONL_CONTENT_TYPES[0]}), one case a line.`);
    }
    const accountId = consoleCaller(request).accountId;
    const dataset = await mustFind(accountId, id);
    const parsed = parseCaseLines(request.body, { file: file ?? 'upload' });
    if (!parsed.ok) throw new JunctionError('invalid_request', parsed.message, { param: `line ${parsed.line}${parsed.param ? `: ${parsed.param}` : ''}` });
    const added = await deps.db.transaction(async (tx) => createDatasetRepository(tx).addCases(accountId, dataset.id, parsed.cases));
    reply.status(201);
    return { imported: added.length, dataset: toDatasetView((await datasets.get(accountId, dataset.id)) ?? dataset) };
  });
}
