import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { allUsagePages } from '../billing/usage-pages.ts';
import { usageFiltersOf } from '../billing/usage-filter-schema.ts';
import { outcomeOf } from '../billing/usage-status.ts';
import { listUsage, type UsageFilters, type UsageRow } from '../billing/usage-repository.ts';
import { JunctionError } from '../core/errors.ts';
import { microsToUsd } from '../core/money.ts';
import { parseInput } from '../http/parse-body.ts';
import type { Database, Queryable } from '../store/database.ts';
import { accountReadsOf, type ReportingReads } from '../store/reporting-reads.ts';
import { consoleCaller, requireConsoleUser } from './console-auth.ts';
import { type UsageEntry, UsageQuerySchema } from './contract/usage.ts';
import { usageSummary } from './usage-summary.ts';

export type ConsoleUsageDeps = { db: Database; now: () => Date; settle: () => Promise<void> };

const CSV_COLUMNS = [
  'created_at',
  'id',
  'key_name',
  'endpoint',
  'model',
  'provider',
  'status',
  'outcome',
  'http_status',
  'input_tokens',
  'output_tokens',
  'cost_usd',
  'latency_ms',
  'attempts',
  'agent_id',
  'agent_run_id',
] as const;

const encodeCursor = (row: UsageRow): string => Buffer.from(`${row.created_at.toISOString()}|${row.id}`).toString('base64url');
function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime())) throw new JunctionError('invalid_request', 'The cursor is not valid; start from the first page.', { param: 'cursor' });
  return { createdAt, id };
}

async function keyNames(db: Queryable, accountId: string): Promise<Map<string, string>> {
  const result = await db.query<{ id: string; name: string }>('SELECT id, name FROM api_keys WHERE account_id = $1', [accountId]);
  return new Map(result.rows.map((row) => [row.id, row.name]));
}

const toEntry = (row: UsageRow, names: Map<string, string>): UsageEntry => ({
  id: row.id,
  key_id: row.key_id,
  key_name: row.key_id ? (names.get(row.key_id) ?? null) : null,
  request_id: row.request_id,
  endpoint: row.endpoint,
  requested_model: row.requested_model,
  model: row.model,
  provider: row.provider,
  status: row.status,
  outcome: outcomeOf(row.status),
  http_status: row.http_status,
  error_code: row.error_code,
  input_tokens: row.input_tokens,
  output_tokens: row.output_tokens,
  cached_input_tokens: row.cached_input_tokens,
  cache_write_tokens: row.cache_write_tokens,
  reasoning_tokens: row.reasoning_tokens,
  cost_usd: microsToUsd(Number(row.cost_micros)),
  latency_ms: row.latency_ms,
  attempts: row.attempts,
  streamed: row.streamed,
  cache_hit: row.cache_hit,
  agent_id: row.agent_id,
  agent_version: row.agent_version,
  agent_run_id: row.agent_run_id,
  created_at: row.created_at.toISOString(),
});

/** A CSV field: quoted when it holds a comma, quote or newline; formula-looking text is defused for spreadsheets. */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** An export's text, produced as its reader asks for it (Readable.from waits for each chunk to be read): one page of rows in memory at a time. */
async function* exportLines(reads: ReportingReads, accountId: string, filters: Omit<UsageFilters, 'limit'>, format: 'csv' | 'jsonl'): AsyncGenerator<string> {
  const names = await reads.session((db) => keyNames(db, accountId));
  if (format === 'csv') yield `${CSV_COLUMNS.join(',')}\n`;
  for await (const page of allUsagePages(reads, accountId, filters)) {
    let text = '';
    for (const row of page) {
      const entry = toEntry(row, names);
      text += format === 'csv' ? `${CSV_COLUMNS.map((column) => csvField(entry[column])).join(',')}\n` : `${JSON.stringify(entry)}\n`;
    }
    yield text;
  }
}

const EXPORT_TYPES = { csv: 'text/csv; charset=utf-8', jsonl: 'application/x-ndjson; charset=utf-8' } as const;

/** The usage log of the session's account: filtered, keyset-paged, exportable whole as CSV or JSON Lines, one row in detail. */
export async function consoleUsageRoutes(app: FastifyInstance, deps: ConsoleUsageDeps): Promise<void> {
  const reader = requireConsoleUser(deps.db, deps.now);
  const reads = (accountId: string) => accountReadsOf(deps.db, accountId);

  const filtersFrom = (query: unknown): UsageFilters => {
    const input = parseInput(UsageQuerySchema, query, 'query string');
    return { ...usageFiltersOf(input), ...(input.cursor && { before: decodeCursor(input.cursor) }), limit: input.limit };
  };

  app.get('/usage', { preHandler: reader }, async (request) => {
    const accountId = consoleCaller(request).accountId;
    const filters = filtersFrom(request.query);
    await deps.settle();
    const [rows, names] = await reads(accountId).session(async (db) => [await listUsage(db, accountId, { ...filters, limit: filters.limit + 1 }), await keyNames(db, accountId)] as const);
    const page = rows.slice(0, filters.limit);
    const last = page.at(-1);
    return { data: page.map((row) => toEntry(row, names)), next_cursor: rows.length > filters.limit && last ? encodeCursor(last) : null };
  });

  // Every row the filters match, however many: streamed page by page, never cut.
  for (const format of ['csv', 'jsonl'] as const) {
    app.get(`/usage.${format}`, { preHandler: reader }, async (request, reply) => {
      const accountId = consoleCaller(request).accountId;
      const filters: Omit<UsageFilters, 'limit'> = filtersFrom(request.query);
      await deps.settle();
      // The first read is made before the answer starts: a busy or unreachable store is still a 503, not a cut stream.
      const lines = exportLines(reads(accountId), accountId, filters, format);
      const first = await lines.next();
      // One page ahead at most: a slow client holds back the reads instead of filling memory.
      const body = Readable.from(
        (async function* () {
          if (!first.done) yield first.value;
          yield* lines;
        })(),
        { highWaterMark: 1 },
      );
      return reply
        .header('content-type', EXPORT_TYPES[format])
        .header('content-disposition', `attachment; filename="usage-${deps.now().toISOString().slice(0, 10)}.${format}"`)
        .send(body);
    });
  }

  // Static before parametric: fastify matches /usage/summary here, never as the row 'summary'.
  app.get('/usage/summary', { preHandler: reader }, async (request) => {
    const accountId = consoleCaller(request).accountId;
    await deps.settle();
    return reads(accountId).session(async (db) => usageSummary(db, accountId, request.query, deps.now(), await keyNames(db, accountId)));
  });

  app.get('/usage/:id', { preHandler: reader }, async (request) => {
    const accountId = consoleCaller(request).accountId;
    const { id } = request.params as { id: string };
    const entry = await reads(accountId).session((db) => usageEntryById(db, accountId, id));
    if (!entry) throw new JunctionError('not_found', `No usage row '${id}' in this account.`);
    return { data: entry };
  });
}

/** One usage row of the account as the Usage page and the run page's call view show it, or undefined. */
export async function usageEntryById(db: Queryable, accountId: string, id: string): Promise<(UsageEntry & Pick<UsageRow, 'upstream_model' | 'units'>) | undefined> {
  const result = await db.query<UsageRow>(
    `SELECT id, key_id, request_id, endpoint, requested_model, model, provider, upstream_model, status, http_status, error_code,
     input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens, units, cost_micros, latency_ms, attempts,
     streamed, agent_id, agent_version, agent_run_id, cache_hit, created_at FROM usage_log WHERE id = $1 AND account_id = $2`,
    [id, accountId],
  );
  const row = result.rows[0];
  return row && { ...toEntry(row, await keyNames(db, accountId)), upstream_model: row.upstream_model, units: row.units };
}
