import { USAGE_COLUMNS } from './usage-record.ts';
import { MISSING_OWNERS } from './usage-owner-check.ts';

/**
 * The two statements a settlement batch is written with (settlement-batch-sql.ts), from
 * the same inputs (BatchInputs): the usage rows (usage_row[], binary), the key and account
 * parts and this process's lease parts (JSON arrays), the UTC day and month, the holder,
 * and, when the batch has them, the crash journal's rows to upsert and the ids of settled
 * calls whose journal row may exist. A statement holds only the parts its batch has: the
 * journal's two, empty in nearly every batch under load (most calls settle before they are
 * journaled), cost the embedded engine about 0.5 ms a batch to set up and run on nothing.
 * Each shape is its own prepared statement, its parameters numbered in order of first use.
 *
 * - The fresh form: the usual batch, whose usage rows are all new. Each key's and account's
 *   spend comes summed from the caller (its rows' costs and any spend without a row), and
 *   the rows go in with a plain INSERT: a row whose key (id, created_at: a call's start,
 *   the same on every write of it) is already in the log fails the statement (23505 on
 *   the log's key, named after the partition that holds it), and nothing of it is written.
 * - The replay-safe form: the same batch when some of its rows may already be in the log (a
 *   replayed shutdown journal, a call a reclaimer settled as interrupted, a batch retried
 *   after its commit went unanswered). Rows already there are skipped (ON CONFLICT DO
 *   NOTHING) and spend is summed in SQL from the rows actually inserted, so a retry never
 *   bills twice; of the key and account parts it reads only the lease and `other_spend`, the
 *   spend that came without a usage row.
 *
 * On the embedded engine the replay-safe form's conflict check, RETURNING and the sums
 * over what it returned cost about half of each row's work in the engine, and batches with
 * an already-stored row are rare: the fresh form runs first and the replay-safe one only
 * after it fails that way.
 *
 * Usage rows travel as one parameter, an array of usage_row (migration 0012) in PostgreSQL's
 * binary format (binary-records.ts): no value is parsed from text, and one function scan
 * unnests the rows (one array per column, as text, cost the embedded engine about a third of
 * each row's work).
 *
 * Lock order: key and account rows, then lease rows, as a top-up (`lease-sql.ts`) takes
 * them. PostgreSQL runs data-modifying CTEs in no promised order, so the lease update reads
 * both totals' RETURNING first; in the opposite order a top-up on another connection of
 * this process deadlocked against its own group commit.
 *
 * A usage row whose account or key does not exist fails either statement with 23503, as a
 * foreign key would: require_usage_owners() (migration 0010) counts such rows against the
 * owner updates. The fresh form counts them from its updates' RETURNING (the rows each
 * updated part carries) against the batch's totals, which the caller sends; joining the
 * parts again against the updates, as before, cost the embedded engine 0.3-0.5 ms a batch.
 */

/** A batch's inputs, one per parameter a statement may take. */
export type BatchInputs = {
  usageRows: Uint8Array;
  keyParts: string;
  accountParts: string;
  leaseParts: string;
  day: number;
  month: number;
  holderId: string | null;
  /** Usage rows that name a key, and all of them (the fresh form's owner check). */
  keyedUsageRows: number;
  usageRowCount: number;
  /** Calls under way to upsert into the journal (JSON), when there are any. */
  journalRows?: string;
  /** Settled calls whose journal rows are removed (array literal), when there are any. */
  closedCallIds?: string;
};

export type BatchForm = 'fresh' | 'replay-safe';
type InputName = keyof BatchInputs;
/** A statement of one form and shape: its text, and which input each of its parameters is. */
export type BatchStatement = { name: string; text: string; inputs: readonly InputName[] };

/** The statement for `inputs`' shape (which optional inputs it has), built once per shape. */
export function batchStatement(form: BatchForm, inputs: BatchInputs): BatchStatement {
  const journal = inputs.journalRows !== undefined;
  const closed = inputs.closedCallIds !== undefined;
  const name = `settlement-${form}${journal ? '-journal' : ''}${closed ? '-closed' : ''}`;
  let statement = statements.get(name);
  if (statement === undefined) {
    statement = compose(name, form, journal, closed);
    statements.set(name, statement);
  }
  return statement;
}

/** The parameters for `statement`, in its order. */
export const batchParameters = (statement: BatchStatement, inputs: BatchInputs): unknown[] => statement.inputs.map((input) => inputs[input]);

const statements = new Map<string, BatchStatement>();

const INSERTED_COLUMNS = USAGE_COLUMNS.join(', ');
// Exact: a whole number of milliseconds times 1,000 µs stays below 2^53 for any date a clock gives.
const fromEpochMs = (column: string) => `timestamptz 'epoch' + ${column} * interval '1 millisecond'`;

const OPEN_CALL_COLUMNS = `id, holder_id, account_id, key_id, request_id, endpoint, requested_model, model, provider, upstream_model,
  input_tokens, output_tokens, cost_micros, streamed, agent_id, agent_run_id, started_at`;

const OPEN_CALL_TYPES = `id text, holder_id uuid, account_id uuid, key_id uuid, request_id text, endpoint text, requested_model text,
  model text, provider text, upstream_model text, input_tokens integer, output_tokens integer, cost_micros bigint,
  streamed boolean, agent_id text, agent_run_id text, started_at timestamptz`;

function compose(name: string, form: BatchForm, journal: boolean, closed: boolean): BatchStatement {
  const inputs: InputName[] = [];
  /** `$n` of an input, numbered as the text first uses it. */
  const p = (input: InputName): string => {
    const index = inputs.indexOf(input);
    return `$${index >= 0 ? index + 1 : inputs.push(input)}`;
  };
  const fresh = form === 'fresh';

  // The replay-safe form skips rows already in the log and sums spend from what it inserted.
  const inserted = `inserted AS (
       INSERT INTO usage_log (${INSERTED_COLUMNS})
       SELECT ${INSERTED_COLUMNS} FROM unnest(${p('usageRows')}::usage_row[])${
         fresh
           ? ''
           : `
       ON CONFLICT (id, created_at) DO NOTHING
       RETURNING key_id, account_id, cost_micros, created_at`
       }
     )`;

  /** The parts as the caller sends them, `last_used_ms` (the newest usage row's time, or null) made a timestamp. */
  const freshParts = (input: InputName) =>
    `(SELECT id, lease, spend, usage_rows, ${fromEpochMs('last_used_ms')} AS last_used
       FROM jsonb_to_recordset(${p(input)}::jsonb) AS p(id uuid, lease bigint, spend bigint, usage_rows integer, last_used_ms bigint))`;
  /** A part's spend without a usage row (`other_spend`), joined with the spend of the rows actually inserted. */
  const replaySafeParts = (owner: 'key_id' | 'account_id', input: InputName) => `(
       SELECT COALESCE(s.${owner}, l.id) AS id, COALESCE(s.spend, 0) + COALESCE(l.other_spend, 0) AS spend, COALESCE(l.lease, 0) AS lease, s.last_used
       FROM (SELECT ${owner}, sum(cost_micros) AS spend, max(created_at) AS last_used FROM inserted WHERE ${owner} IS NOT NULL GROUP BY ${owner}) s
       FULL JOIN jsonb_to_recordset(${p(input)}::jsonb) AS l(id uuid, lease bigint, other_spend bigint) ON l.id = s.${owner}
     )`;
  // The fresh form's owner check reads the rows each updated part carries.
  const returning = (id: string) => (fresh ? `${id}, d.usage_rows` : id);

  /** Adds `d`'s spend to a key's windows and total, and takes its lease back; `d.last_used` is its newest usage row's time. */
  const keyTotals = `key_totals AS (
       UPDATE api_keys k SET
         spend_day_micros = (CASE WHEN k.spend_day = ${p('day')} THEN k.spend_day_micros ELSE 0 END) + d.spend,
         spend_day = ${p('day')},
         spend_month_micros = (CASE WHEN k.spend_month = ${p('month')} THEN k.spend_month_micros ELSE 0 END) + d.spend,
         spend_month = ${p('month')},
         spend_total_micros = k.spend_total_micros + d.spend,
         leased_micros = k.leased_micros - d.lease,
         last_used_at = GREATEST(k.last_used_at, d.last_used)
       FROM ${fresh ? freshParts('keyParts') : replaySafeParts('key_id', 'keyParts')} d WHERE k.id = d.id
       RETURNING ${returning('k.id')}
     )`;
  const accountTotals = `account_totals AS (
       UPDATE accounts a SET usage_micros = a.usage_micros + d.spend, leased_micros = a.leased_micros - d.lease
       FROM ${fresh ? freshParts('accountParts') : replaySafeParts('account_id', 'accountParts')} d WHERE a.id = d.id
       RETURNING ${returning('a.id')}
     )`;
  const leaseRows = `lease_rows AS (
       UPDATE budget_leases l SET amount_micros = l.amount_micros - d.lease
       FROM jsonb_to_recordset(${p('leaseParts')}::jsonb) AS d(key_id uuid, account_id uuid, lease bigint)
       WHERE l.holder_id = ${p('holderId')} AND (l.key_id = d.key_id OR l.account_id = d.account_id)
         -- Lock order (see above): keys and accounts are finished first.
         AND (SELECT count(*) FROM key_totals) + (SELECT count(*) FROM account_totals) >= 0
     )`;
  // Functions: an input is numbered only when its part is in the statement.
  const closedCalls = () => `closed_calls AS (
       DELETE FROM open_calls WHERE id = ANY(${p('closedCallIds')}::text[])
     )`;
  const journaledCalls = () => `journaled_calls AS (
       INSERT INTO open_calls (${OPEN_CALL_COLUMNS})
       SELECT ${OPEN_CALL_COLUMNS} FROM jsonb_to_recordset(${p('journalRows')}::jsonb) AS o(${OPEN_CALL_TYPES})
       ON CONFLICT (id) DO UPDATE SET input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
         cost_micros = EXCLUDED.cost_micros, holder_id = EXCLUDED.holder_id, updated_at = now()
     )`;
  const parts = [inserted, keyTotals, accountTotals, leaseRows, ...(closed ? [closedCalls()] : []), ...(journal ? [journaledCalls()] : [])];
  const missingOwners = fresh
    ? `${p('keyedUsageRows')}::bigint - (SELECT coalesce(sum(usage_rows), 0) FROM key_totals)
       + ${p('usageRowCount')}::bigint - (SELECT coalesce(sum(usage_rows), 0) FROM account_totals)`
    : MISSING_OWNERS('inserted', 'key_totals', 'account_totals');
  return { name, text: `WITH ${parts.join(', ')}\n     SELECT require_usage_owners(${missingOwners})`, inputs };
}
