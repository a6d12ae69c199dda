/**
 * The one database interface every repository uses. Two engines implement it with
 * the same SQL: embedded PGlite (default) and PostgreSQL through a `pg` pool.
 * int8 columns come back as JS numbers on both (money is integer micro-USD, far
 * below 2^53), numeric as strings, timestamptz as Date, jsonb as parsed values.
 */
import type { ReportingReads } from './reporting-reads.ts';
import type { StoreDurabilityCounts } from './store-durability-counters.ts';

export type QueryResult<Row> = { rows: Row[]; rowCount: number };

export type QueryOptions = {
  /**
   * Keeps the statement prepared under this name (on each PostgreSQL connection; once per
   * PGlite instance, outside transactions), so it is parsed and planned once rather than on
   * every run: for a large statement run often, whose planning costs as much as its
   * execution. One name, one text.
   */
  prepareAs?: string;
};

export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<Row>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export type NotificationHandler = (payload: string) => void;

/** Payload a handler receives when notifications may have been missed (listener reconnected). */
export const LOST_NOTIFICATIONS = '*';

export interface Database extends Queryable {
  readonly engine: 'pglite' | 'postgres';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Subscribes to NOTIFY on `channel`; resolves to an unsubscribe function. */
  listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>>;
  /** Connection pool use, where there is a pool (PostgreSQL; PGlite is one in-process engine). */
  poolStats?(): { total: number; idle: number; waiting: number };
  /** Console and reporting reads on connections of their own (PostgreSQL); reportingReadsOf() gives every store's. */
  readonly reportingReads?: ReportingReads;
  /**
   * CPU seconds the embedded engine's thread has used (PGlite, on Linux; undefined before it
   * opens or after it stops). Its work is the server process's CPU too; PostgreSQL's is its
   * own processes'.
   */
  engineCpuSeconds?(): number | undefined;
  /** The embedded engine's fsyncs and checkpoints so far (PGlite; undefined before it opens). */
  durabilityCounts?(): StoreDurabilityCounts | undefined;
  close(): Promise<void>;
}
