import { utcDayNumber, utcMonthNumber } from '../core/utc-windows.ts';
import { arrayLiteral } from '../store/array-literal.ts';
import { type BinaryValue, binaryRecordArray } from '../store/binary-records.ts';
import type { Queryable } from '../store/database.ts';
import { isConnectionError } from '../store/connection-errors.ts';
import { boundedText } from './bounded-text.ts';
import type { OpenCall } from './open-call.ts';
import type { Settlement } from './settlement.ts';
import { type BatchForm, type BatchInputs, batchParameters, batchStatement } from './settlement-statements.ts';
import { isUsageLogKey } from './usage-partitions.ts';
import type { UsageRecord } from './usage-record.ts';
import { USAGE_ROW_TYPES, usageRowTypeChanged, usageRowTypeOid } from './usage-row-type.ts';

/**
 * What one batch changes for one key or account. `rowSpend` is its usage rows' cost and
 * `otherSpend` the spend that came without a row; `usage_rows` counts the rows and
 * `last_used_ms` is the newest one's time (epoch ms), or null.
 */
type OwnerPart = { id: string; lease: number; rowSpend: number; otherSpend: number; usage_rows: number; last_used_ms: number | null };

function partOf(parts: Map<string, OwnerPart>, id: string): OwnerPart {
  let part = parts.get(id);
  if (part === undefined) {
    part = { id, lease: 0, rowSpend: 0, otherSpend: 0, usage_rows: 0, last_used_ms: null };
    parts.set(id, part);
  }
  return part;
}

/** Lease given back and spend that came without a usage row (a returned lease, a tool's charge). */
function addLeaseAndSpend(part: OwnerPart, lease: number, otherSpend: number): void {
  part.lease += lease;
  part.otherSpend += otherSpend;
}

function addUsageRow(part: OwnerPart, usage: UsageRecord): void {
  part.rowSpend += usage.costMicros;
  part.usage_rows += 1;
  const at = usage.createdAt.getTime();
  if (part.last_used_ms === null || at > part.last_used_ms) part.last_used_ms = at;
}

/** The parts as the statements read them: `spend` and `usage_rows` for the fresh form, `other_spend` for the replay-safe one. */
const partsJson = (parts: Map<string, OwnerPart>): string =>
  JSON.stringify(
    // Sorted by id (unique in the map): every batch locks its key and account rows in one order, so two batches never wait in a cycle.
    Array.from(parts.values())
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((part) => ({
        id: part.id,
        lease: part.lease,
        spend: part.rowSpend + part.otherSpend,
        other_spend: part.otherSpend,
        usage_rows: part.usage_rows,
        last_used_ms: part.last_used_ms,
      })),
  );

/** A usage row already in the log: the fresh form of the batch fails with this, and the replay-safe form takes the batch. */
const isStoredUsageRow = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505' && isUsageLogKey((error as { constraint?: unknown }).constraint);

/** Each usage row's values in USAGE_COLUMNS' order (the usage_row type's), its client-chosen text made storable. */
const usageRowValues = (record: UsageRecord): BinaryValue[] => [
  record.id,
  record.accountId,
  record.keyId,
  boundedText(record.requestId, 128),
  boundedText(record.endpoint, 64),
  boundedText(record.requestedModel),
  boundedText(record.model),
  boundedText(record.provider, 64),
  boundedText(record.upstreamModel),
  record.status,
  record.httpStatus,
  boundedText(record.errorCode, 64),
  record.inputTokens,
  record.outputTokens,
  record.cachedInputTokens,
  record.reasoningTokens,
  record.units === null ? null : JSON.stringify(record.units),
  record.costMicros,
  record.latencyMs,
  record.attempts,
  record.streamed,
  boundedText(record.agentId, 128),
  boundedText(record.agentRunId, 128),
  boundedText(record.agentVersion ?? null, 64),
  record.createdAt,
  record.cacheWriteTokens ?? 0,
  record.cacheHit ?? false,
];

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
 * progressed upserted, settled calls removed). See settlement-statements.ts for the
 * statement's two forms: the fresh one first, the replay-safe one when a usage row is
 * already in the log, so a retry can never bill twice.
 *
 * `journaledCallIds`: the settled calls whose journal rows may exist; without it, every
 * usage row's call.
 */
export async function writeSettlementBatch(
  db: Queryable,
  batch: readonly Settlement[],
  openCalls: readonly OpenCall[],
  holderId: string | undefined,
  now: Date,
  journaledCallIds?: readonly string[],
): Promise<void> {
  const usage: UsageRecord[] = [];
  const keyParts = new Map<string, OwnerPart>();
  const accountParts = new Map<string, OwnerPart>();
  for (const settlement of batch) {
    const row = settlement.usage;
    if (row) {
      usage.push(row);
      // A row's cost counts for the key and account it names, as the replay-safe form sums it in SQL.
      addUsageRow(partOf(accountParts, row.accountId), row);
      if (row.keyId) addUsageRow(partOf(keyParts, row.keyId), row);
    }
    const otherSpend = row ? 0 : settlement.spendMicros;
    if (settlement.keyId && (settlement.keyLeaseMicros !== 0 || otherSpend !== 0)) addLeaseAndSpend(partOf(keyParts, settlement.keyId), settlement.keyLeaseMicros, otherSpend);
    if (settlement.accountId && (settlement.accountLeaseMicros !== 0 || otherSpend !== 0)) addLeaseAndSpend(partOf(accountParts, settlement.accountId), settlement.accountLeaseMicros, otherSpend);
  }
  const leasedParts = (parts: Map<string, OwnerPart>) => Array.from(parts.values()).filter((part) => part.lease !== 0);
  const holderLeaseRows = [
    ...leasedParts(keyParts).map((part) => ({ key_id: part.id, account_id: null, lease: part.lease })),
    ...leasedParts(accountParts).map((part) => ({ key_id: null, account_id: part.id, lease: part.lease })),
  ];
  // Calls journaled without a holder (a process that does not register) cannot be reclaimed: skip.
  const openRows = holderId ? openCalls.map((call) => openCallRow(call, holderId)) : [];
  // Settled calls whose journal rows are removed. Most calls settle before they are
  // journaled (JOURNAL_START_MS), and the queue knows which were: probing the journal
  // for every row of a batch cost about a tenth of the statement on PGlite.
  const closedCallIds = journaledCallIds ?? usage.map((row) => row.id);
  const inputs = (usageRowTypeOid: number): BatchInputs => ({
    usageRows: binaryRecordArray(usageRowTypeOid, USAGE_ROW_TYPES, usage.map(usageRowValues)),
    keyParts: partsJson(keyParts),
    accountParts: partsJson(accountParts),
    leaseParts: JSON.stringify(holderLeaseRows),
    day: utcDayNumber(now),
    month: utcMonthNumber(now),
    holderId: holderId ?? null,
    keyedUsageRows: usage.filter((row) => row.keyId !== null).length,
    usageRowCount: usage.length,
    ...(openRows.length > 0 && { journalRows: JSON.stringify(openRows) }),
    ...(closedCallIds.length > 0 && { closedCallIds: arrayLiteral(closedCallIds) }),
  });
  const oid = await usageRowTypeOid(db);
  try {
    await writeBatch(db, oid, inputs(oid));
  } catch (error) {
    // A schema restored under this running server: usage_row has a new id. Once more with it.
    if (isConnectionError(error) || !(await usageRowTypeChanged(db, oid))) throw error;
    const newOid = await usageRowTypeOid(db);
    await writeBatch(db, newOid, inputs(newOid));
  }
}

/** The fresh form, then the replay-safe one if a usage row is already in the log. */
async function writeBatch(db: Queryable, usageRowTypeOid: number, inputs: BatchInputs): Promise<void> {
  try {
    await runBatchStatement(db, 'fresh', usageRowTypeOid, inputs);
  } catch (error) {
    if (!isStoredUsageRow(error)) throw error;
    await runBatchStatement(db, 'replay-safe', usageRowTypeOid, inputs);
  }
}

/**
 * Planning a statement cost as much as running a batch of a dozen rows: every shape of
 * either form is prepared. The name carries usage_row's id: a statement prepared with an
 * id the type no longer has fails for good, and a new id must prepare anew.
 */
async function runBatchStatement(db: Queryable, form: BatchForm, usageRowTypeOid: number, inputs: BatchInputs): Promise<void> {
  const statement = batchStatement(form, inputs);
  await db.query(statement.text, batchParameters(statement, inputs), { prepareAs: `${statement.name}-${usageRowTypeOid}` });
}
