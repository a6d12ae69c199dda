import { USAGE_COLUMNS } from './usage-record.ts';
import { MISSING_OWNERS } from './usage-owner-check.ts';

/**
 * The two statements a settlement batch is written with (settlement-batch-sql.ts), from
 * the same parameters:
 *
 * $1 journal rows, $2 key parts, $3 account parts, $4 this process's lease parts (JSON
 * arrays), $5 and $6 the UTC day and month, $7 the holder, then one array per usage
 * column in USAGE_COLUMNS' order, then the ids of calls whose journal row may exist.
 *
 * - FRESH_BATCH: the usual batch, whose usage rows are all new. Each key's and account's
 *   spend comes summed from the caller (its rows' costs and any spend without a row), and
 *   the rows go in with a plain INSERT: a row whose id is already in the log fails the
 *   statement (23505 on usage_log_pkey), and nothing of it is written.
 * - REPLAY_SAFE_BATCH: the same batch when some of its rows may already be in the log (a
 *   replayed shutdown journal, a call a reclaimer settled as interrupted, a batch retried
 *   after its commit went unanswered). Rows already there are skipped (ON CONFLICT DO
 *   NOTHING) and spend is summed in SQL from the rows actually inserted, so a retry never
 *   bills twice; of the parts in $2 and $3 it reads only the lease and `other_spend`, the
 *   spend that came without a usage row.
 *
 * On the embedded engine the replay-safe form's conflict check, RETURNING and the sums
 * over what it returned cost about half of each row's work in the engine, and batches with
 * an already-stored row are rare: the fresh form runs first and the replay-safe one only
 * after it fails that way.
 *
 * Usage rows travel as one array per column (`unnest`), each an array literal sent as text
 * (array-literal.ts): PostgreSQL reads an array of plain values faster than it parses the
 * same rows as JSON and converts every field again. Two columns travel cheaper still:
 * created_at as milliseconds since the epoch (parsing an ISO 8601 text per row cost more
 * than any other column), and a column NULL in every row goes as an empty array, which
 * unnest pads with NULLs (the id column always has every row).
 *
 * Lock order: key and account rows, then lease rows, as a top-up (`lease-sql.ts`) takes
 * them. PostgreSQL runs data-modifying CTEs in no promised order, so the lease update reads
 * both totals' RETURNING first; in the opposite order a top-up on another connection of
 * this process deadlocked against its own group commit.
 *
 * A usage row whose account or key does not exist fails either statement with 23503, as a
 * foreign key would: require_usage_owners() (migration 0010) counts such rows against the
 * owner updates.
 */

const USAGE_COLUMN_TYPES: Record<(typeof USAGE_COLUMNS)[number], string> = {
  id: 'text', account_id: 'uuid', key_id: 'uuid', request_id: 'text', endpoint: 'text', requested_model: 'text',
  model: 'text', provider: 'text', upstream_model: 'text', status: 'text', http_status: 'integer', error_code: 'text',
  input_tokens: 'integer', output_tokens: 'integer', cached_input_tokens: 'integer', reasoning_tokens: 'integer',
  units: 'jsonb', cost_micros: 'bigint', latency_ms: 'integer', attempts: 'integer', streamed: 'boolean',
  agent_id: 'text', agent_run_id: 'text', agent_version: 'text', created_at: 'bigint',
};

const FIRST_USAGE_PARAMETER = 8;
const CLOSED_CALLS_PARAMETER = FIRST_USAGE_PARAMETER + USAGE_COLUMNS.length;
const USAGE_ARRAYS = USAGE_COLUMNS.map((column, index) => `$${FIRST_USAGE_PARAMETER + index}::text::${USAGE_COLUMN_TYPES[column]}[]`).join(', ');
/** The arrays' columns as unnest names them (created_at arrives as created_at_ms). */
const USAGE_ARRAY_NAMES = USAGE_COLUMNS.map((column) => (column === 'created_at' ? 'created_at_ms' : column)).join(', ');
const INSERTED_COLUMNS = USAGE_COLUMNS.join(', ');
// Exact: a whole number of milliseconds times 1,000 µs stays below 2^53 for any date a clock gives.
const fromEpochMs = (column: string) => `timestamptz 'epoch' + ${column} * interval '1 millisecond'`;
const SELECT_USAGE_ROWS = `SELECT ${USAGE_COLUMNS.map((column) => (column === 'created_at' ? `${fromEpochMs('created_at_ms')} AS created_at` : column)).join(', ')}
       FROM unnest(${USAGE_ARRAYS}) AS r(${USAGE_ARRAY_NAMES})`;

/** Adds `d`'s spend to a key's windows and total, and takes its lease back; `d.last_used` is its newest usage row's time. */
const KEY_TOTALS = (deltas: string) => `key_totals AS (
       UPDATE api_keys k SET
         spend_day_micros = (CASE WHEN k.spend_day = $5 THEN k.spend_day_micros ELSE 0 END) + d.spend,
         spend_day = $5,
         spend_month_micros = (CASE WHEN k.spend_month = $6 THEN k.spend_month_micros ELSE 0 END) + d.spend,
         spend_month = $6,
         spend_total_micros = k.spend_total_micros + d.spend,
         leased_micros = k.leased_micros - d.lease,
         last_used_at = GREATEST(k.last_used_at, d.last_used)
       FROM ${deltas} d WHERE k.id = d.id
       RETURNING k.id
     )`;

const ACCOUNT_TOTALS = (deltas: string) => `account_totals AS (
       UPDATE accounts a SET usage_micros = a.usage_micros + d.spend, leased_micros = a.leased_micros - d.lease
       FROM ${deltas} d WHERE a.id = d.id
       RETURNING a.id
     )`;

const OPEN_CALL_COLUMNS = `id, holder_id, account_id, key_id, request_id, endpoint, requested_model, model, provider, upstream_model,
  input_tokens, output_tokens, cost_micros, streamed, agent_id, agent_run_id, started_at`;

const OPEN_CALL_TYPES = `id text, holder_id uuid, account_id uuid, key_id uuid, request_id text, endpoint text, requested_model text,
  model text, provider text, upstream_model text, input_tokens integer, output_tokens integer, cost_micros bigint,
  streamed boolean, agent_id text, agent_run_id text, started_at timestamptz`;

/** This process's lease rows, the crash journal's settled calls removed and calls under way upserted. */
const LEASES_AND_JOURNAL = `lease_rows AS (
       UPDATE budget_leases l SET amount_micros = l.amount_micros - d.lease
       FROM jsonb_to_recordset($4::jsonb) AS d(key_id uuid, account_id uuid, lease bigint)
       WHERE l.holder_id = $7 AND (l.key_id = d.key_id OR l.account_id = d.account_id)
         -- Lock order (see above): keys and accounts are finished first.
         AND (SELECT count(*) FROM key_totals) + (SELECT count(*) FROM account_totals) >= 0
     ), closed_calls AS (
       DELETE FROM open_calls WHERE id = ANY($${CLOSED_CALLS_PARAMETER}::text[])
     ), journaled_calls AS (
       INSERT INTO open_calls (${OPEN_CALL_COLUMNS})
       SELECT ${OPEN_CALL_COLUMNS} FROM jsonb_to_recordset($1::jsonb) AS o(${OPEN_CALL_TYPES})
       ON CONFLICT (id) DO UPDATE SET input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
         cost_micros = EXCLUDED.cost_micros, holder_id = EXCLUDED.holder_id, updated_at = now()
     )`;

/** The parts as the caller sends them, `last_used_ms` (the newest usage row's time, or null) made a timestamp. */
const FRESH_PARTS = (parameter: string) =>
  `(SELECT id, lease, spend, ${fromEpochMs('last_used_ms')} AS last_used
       FROM jsonb_to_recordset(${parameter}::jsonb) AS p(id uuid, lease bigint, spend bigint, last_used_ms bigint))`;

/** Usage rows naming a key or account that no update found: the rows counted in parts whose owner is missing. */
const MISSING_FRESH_OWNERS = `(SELECT coalesce(sum(p.usage_rows), 0) FROM jsonb_to_recordset($2::jsonb) AS p(id uuid, usage_rows integer)
         WHERE p.usage_rows > 0 AND NOT EXISTS (SELECT 1 FROM key_totals k WHERE k.id = p.id))
       + (SELECT coalesce(sum(p.usage_rows), 0) FROM jsonb_to_recordset($3::jsonb) AS p(id uuid, usage_rows integer)
         WHERE p.usage_rows > 0 AND NOT EXISTS (SELECT 1 FROM account_totals a WHERE a.id = p.id))`;

export const FRESH_BATCH = `WITH inserted AS (
       INSERT INTO usage_log (${INSERTED_COLUMNS})
       ${SELECT_USAGE_ROWS}
     ), ${KEY_TOTALS(FRESH_PARTS('$2'))}, ${ACCOUNT_TOTALS(FRESH_PARTS('$3'))}, ${LEASES_AND_JOURNAL}
     SELECT require_usage_owners(${MISSING_FRESH_OWNERS})`;

/** A part's spend without a usage row (`other_spend` in $2, $3), joined with the spend of the rows actually inserted. */
const REPLAY_SAFE_PARTS = (owner: 'key_id' | 'account_id', parameter: string) => `(
       SELECT COALESCE(s.${owner}, l.id) AS id, COALESCE(s.spend, 0) + COALESCE(l.other_spend, 0) AS spend, COALESCE(l.lease, 0) AS lease, s.last_used
       FROM (SELECT ${owner}, sum(cost_micros) AS spend, max(created_at) AS last_used FROM inserted WHERE ${owner} IS NOT NULL GROUP BY ${owner}) s
       FULL JOIN jsonb_to_recordset(${parameter}::jsonb) AS l(id uuid, lease bigint, other_spend bigint) ON l.id = s.${owner}
     )`;

export const REPLAY_SAFE_BATCH = `WITH inserted AS (
       INSERT INTO usage_log (${INSERTED_COLUMNS})
       ${SELECT_USAGE_ROWS}
       ON CONFLICT (id) DO NOTHING
       RETURNING key_id, account_id, cost_micros, created_at
     ), ${KEY_TOTALS(REPLAY_SAFE_PARTS('key_id', '$2'))}, ${ACCOUNT_TOTALS(REPLAY_SAFE_PARTS('account_id', '$3'))}, ${LEASES_AND_JOURNAL}
     SELECT require_usage_owners(${MISSING_OWNERS('inserted', 'key_totals', 'account_totals')})`;
