import { utcDayNumber, utcMonthNumber } from '../core/utc-windows.ts';
import { arrayLiteral } from '../store/array-literal.ts';
import type { Queryable } from '../store/database.ts';
import { boundedText } from './bounded-text.ts';
import type { OpenCall } from './open-call.ts';
import type { Settlement } from './settlement.ts';
import { USAGE_COLUMNS, type UsageRecord } from './usage-record.ts';
import { MISSING_OWNERS } from './usage-owner-check.ts';

/**
 * Usage rows travel as one array per column (`unnest`), in USAGE_COLUMNS' order, each an
 * array literal sent as text (array-literal.ts). PostgreSQL reads an array of plain values
 * faster than it parses the same rows as JSON and then converts every field again, which
 * mattered most on PGlite, where the engine runs in WASM.
 *
 * Reading the arrays was about a fifth of the batch's cost on PGlite, so two columns travel
 * cheaper still:
 * - created_at goes as milliseconds since the epoch (bigint), turned into the timestamp in
 *   the statement: parsing an ISO 8601 text per row cost more than any other column;
 * - a column that is NULL in every row of the batch (error_code, units, the agent columns
 *   of a gateway call) goes as an empty array: unnest pads its shorter arrays with NULLs,
 *   and the id column always has every row.
 */
const USAGE_COLUMN_TYPES: Record<(typeof USAGE_COLUMNS)[number], string> = {
  id: 'text', account_id: 'uuid', key_id: 'uuid', request_id: 'text', endpoint: 'text', requested_model: 'text',
  model: 'text', provider: 'text', upstream_model: 'text', status: 'text', http_status: 'integer', error_code: 'text',
  input_tokens: 'integer', output_tokens: 'integer', cached_input_tokens: 'integer', reasoning_tokens: 'integer',
  units: 'jsonb', cost_micros: 'bigint', latency_ms: 'integer', attempts: 'integer', streamed: 'boolean',
  agent_id: 'text', agent_run_id: 'text', agent_version: 'text', created_at: 'bigint',
};

/** The batch's other parameters come first ($1 to $7: journal rows, lease parts, windows, holder); the usage columns follow. */
const FIRST_USAGE_PARAMETER = 8;
const USAGE_ARRAYS = USAGE_COLUMNS.map((column, index) => `$${FIRST_USAGE_PARAMETER + index}::text::${USAGE_COLUMN_TYPES[column]}[]`).join(', ');
/** The arrays' columns as unnest names them (created_at arrives as created_at_ms), and the batch's columns made from them. */
const USAGE_ARRAY_NAMES = USAGE_COLUMNS.map((column) => (column === 'created_at' ? 'created_at_ms' : column)).join(', ');
const BATCH_COLUMNS = USAGE_COLUMNS.map((column) =>
  // Exact: a whole number of milliseconds times 1,000 µs stays below 2^53 for any date a clock gives.
  column === 'created_at' ? `timestamptz 'epoch' + created_at_ms * interval '1 millisecond' AS created_at` : column,
).join(', ');

const OPEN_CALL_COLUMNS = `id, holder_id, account_id, key_id, request_id, endpoint, requested_model, model, provider, upstream_model,
  input_tokens, output_tokens, cost_micros, streamed, agent_id, agent_run_id, started_at`;

const OPEN_CALL_TYPES = `id text, holder_id uuid, account_id uuid, key_id uuid, request_id text, endpoint text, requested_model text,
  model text, provider text, upstream_model text, input_tokens integer, output_tokens integer, cost_micros bigint,
  streamed boolean, agent_id text, agent_run_id text, started_at timestamptz`;

function addPart(parts: Map<string, { lease: number; spend: number }>, id: string, lease: number, spend: number): void {
  const part = parts.get(id) ?? { lease: 0, spend: 0 };
  part.lease += lease;
  part.spend += spend;
  parts.set(id, part);
}

/** The usage rows as one array literal per column, in USAGE_COLUMNS' order, their client-chosen text made storable. */
function usageColumns(records: readonly UsageRecord[]): string[] {
  const column = (read: (record: UsageRecord) => string | number | boolean | null) => {
    const values = records.map(read);
    return values.every((value) => value === null) ? '{}' : arrayLiteral(values);
  };
  return [
    column((record) => record.id),
    column((record) => record.accountId),
    column((record) => record.keyId),
    column((record) => boundedText(record.requestId, 128)),
    column((record) => boundedText(record.endpoint, 64)),
    column((record) => boundedText(record.requestedModel)),
    column((record) => boundedText(record.model)),
    column((record) => boundedText(record.provider, 64)),
    column((record) => boundedText(record.upstreamModel)),
    column((record) => record.status),
    column((record) => record.httpStatus),
    column((record) => boundedText(record.errorCode, 64)),
    column((record) => record.inputTokens),
    column((record) => record.outputTokens),
    column((record) => record.cachedInputTokens),
    column((record) => record.reasoningTokens),
    // A jsonb element is JSON text.
    column((record) => (record.units === null ? null : JSON.stringify(record.units))),
    column((record) => record.costMicros),
    column((record) => record.latencyMs),
    column((record) => record.attempts),
    column((record) => record.streamed),
    column((record) => boundedText(record.agentId, 128)),
    column((record) => boundedText(record.agentRunId, 128)),
    column((record) => boundedText(record.agentVersion ?? null, 64)),
    column((record) => record.createdAt.getTime()),
  ];
}

function openCallRow(call: OpenCall, holderId: string): Record<string, unknown> {
  return {
    id: call.id,
    holder_id: holderId,
    account_id: call.accountId,
    key_id: call.keyId,
    request_id: boundedText(call.requestId, 128),
    endpoint: boundedText(call.endpoint, 64),
    requested_model: boundedText(call.requestedModel),
    model: boundedText(call.model),
    provider: boundedText(call.provider, 64),
    upstream_model: boundedText(call.upstreamModel),
    input_tokens: call.inputTokens,
    output_tokens: call.outputTokens,
    cost_micros: Math.max(0, Math.round(call.costMicros)),
    streamed: call.streamed,
    agent_id: boundedText(call.agentId, 128),
    agent_run_id: boundedText(call.agentRunId, 128),
    started_at: call.startedAt,
  };
}

/**
 * One batch in ONE statement (one round trip; on PGlite, one pass through the WASM
 * engine): usage rows, then per key its spend windows and lease, per account its usage
 * and lease, this process's lease rows, and the crash journal (calls opened or
 * progressed upserted, settled calls removed). Usage rows travel as one array per
 * column (`unnest`), the few other rows as JSON arrays (`jsonb_to_recordset`), so the
 * statement text is the same for every batch size.
 *
 * Lock order: key and account rows, then lease rows, as a top-up (`lease-sql.ts`) takes
 * them. PostgreSQL runs data-modifying CTEs in no promised order, so the lease update
 * reads both totals' RETURNING first; in the opposite order a top-up on another
 * connection of this process deadlocked against its own group commit.
 *
 * A usage row whose account or key does not exist fails the statement (23503), as a
 * foreign key would: require_usage_owners() checks the rows against the owner updates.
 *
 * A call's spend is summed from its usage row as actually inserted: a row whose id is already in
 * the log (a batch replayed from the shutdown journal, a call a reclaimer already
 * settled as interrupted) adds nothing, so a retry can never bill twice.
 */
export async function writeSettlementBatch(
  db: Queryable,
  batch: readonly Settlement[],
  openCalls: readonly OpenCall[],
  holderId: string | undefined,
  now: Date,
): Promise<void> {
  const usage: UsageRecord[] = [];
  // Per key and account: lease parts, and spend that came without a usage row (the row's own spend is summed in SQL).
  const keyParts = new Map<string, { lease: number; spend: number }>();
  const accountParts = new Map<string, { lease: number; spend: number }>();
  for (const settlement of batch) {
    if (settlement.usage) usage.push(settlement.usage);
    const spend = settlement.usage ? 0 : settlement.spendMicros;
    if (settlement.keyId && (settlement.keyLeaseMicros !== 0 || spend !== 0)) addPart(keyParts, settlement.keyId, settlement.keyLeaseMicros, spend);
    if (settlement.accountId && (settlement.accountLeaseMicros !== 0 || spend !== 0)) addPart(accountParts, settlement.accountId, settlement.accountLeaseMicros, spend);
  }
  const keyLeaseRows = [...keyParts].map(([id, part]) => ({ id, ...part }));
  const accountLeaseRows = [...accountParts].map(([id, part]) => ({ id, ...part }));
  const holderLeaseRows = [
    ...keyLeaseRows.filter((row) => row.lease !== 0).map((row) => ({ key_id: row.id, account_id: null, lease: row.lease })),
    ...accountLeaseRows.filter((row) => row.lease !== 0).map((row) => ({ key_id: null, account_id: row.id, lease: row.lease })),
  ];
  // Calls journaled without a holder (a process that does not register) cannot be reclaimed: skip.
  const openRows = holderId ? openCalls.map((call) => openCallRow(call, holderId)) : [];
  await db.query(
    `WITH batch AS (
       SELECT ${BATCH_COLUMNS} FROM unnest(${USAGE_ARRAYS}) AS r(${USAGE_ARRAY_NAMES})
     ), inserted AS (
       INSERT INTO usage_log (${USAGE_COLUMNS.join(', ')})
       SELECT ${USAGE_COLUMNS.join(', ')} FROM batch
       ON CONFLICT (id) DO NOTHING
       RETURNING key_id, account_id, cost_micros, created_at
     ), key_deltas AS (
       SELECT COALESCE(s.key_id, l.id) AS id, COALESCE(s.spend, 0) + COALESCE(l.spend, 0) AS spend, COALESCE(l.lease, 0) AS lease, s.last_used
       FROM (SELECT key_id, sum(cost_micros) AS spend, max(created_at) AS last_used FROM inserted WHERE key_id IS NOT NULL GROUP BY key_id) s
       FULL JOIN jsonb_to_recordset($2::jsonb) AS l(id uuid, lease bigint, spend bigint) ON l.id = s.key_id
     ), key_totals AS (
       UPDATE api_keys k SET
         spend_day_micros = (CASE WHEN k.spend_day = $5 THEN k.spend_day_micros ELSE 0 END) + d.spend,
         spend_day = $5,
         spend_month_micros = (CASE WHEN k.spend_month = $6 THEN k.spend_month_micros ELSE 0 END) + d.spend,
         spend_month = $6,
         spend_total_micros = k.spend_total_micros + d.spend,
         leased_micros = k.leased_micros - d.lease,
         last_used_at = GREATEST(k.last_used_at, d.last_used)
       FROM key_deltas d WHERE k.id = d.id
       RETURNING k.id
     ), account_deltas AS (
       SELECT COALESCE(s.account_id, l.id) AS id, COALESCE(s.spend, 0) + COALESCE(l.spend, 0) AS spend, COALESCE(l.lease, 0) AS lease
       FROM (SELECT account_id, sum(cost_micros) AS spend FROM inserted GROUP BY account_id) s
       FULL JOIN jsonb_to_recordset($3::jsonb) AS l(id uuid, lease bigint, spend bigint) ON l.id = s.account_id
     ), account_totals AS (
       UPDATE accounts a SET usage_micros = a.usage_micros + d.spend, leased_micros = a.leased_micros - d.lease
       FROM account_deltas d WHERE a.id = d.id
       RETURNING a.id
     ), lease_rows AS (
       UPDATE budget_leases l SET amount_micros = l.amount_micros - d.lease
       FROM jsonb_to_recordset($4::jsonb) AS d(key_id uuid, account_id uuid, lease bigint)
       WHERE l.holder_id = $7 AND (l.key_id = d.key_id OR l.account_id = d.account_id)
         -- Lock order (see the comment above): keys and accounts are finished first.
         AND (SELECT count(*) FROM key_totals) + (SELECT count(*) FROM account_totals) >= 0
     ), closed_calls AS (
       DELETE FROM open_calls WHERE id IN (SELECT id FROM batch)
     ), journaled_calls AS (
       INSERT INTO open_calls (${OPEN_CALL_COLUMNS})
       SELECT ${OPEN_CALL_COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS o(${OPEN_CALL_TYPES})
       ON CONFLICT (id) DO UPDATE SET input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
         cost_micros = EXCLUDED.cost_micros, holder_id = EXCLUDED.holder_id, updated_at = now()
     )
     SELECT require_usage_owners(${MISSING_OWNERS('inserted', 'key_totals', 'account_totals')})`,
    [
      JSON.stringify(openRows),
      JSON.stringify(keyLeaseRows),
      JSON.stringify(accountLeaseRows),
      JSON.stringify(holderLeaseRows),
      utcDayNumber(now),
      utcMonthNumber(now),
      holderId ?? null,
      ...usageColumns(usage),
    ],
    // Planning this statement cost as much as running a batch of a dozen rows.
    { prepareAs: 'settlement-batch' },
  );
}
