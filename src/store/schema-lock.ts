/**
 * The transaction-scoped advisory lock every schema change takes (the pgvector extension,
 * the migration table, each migration), so that processes starting at once on one
 * database make each change once: PostgreSQL's `IF NOT EXISTS` does not guard against a
 * concurrent twin, which fails on a unique index instead.
 */
export const SCHEMA_LOCK_SQL = 'SELECT pg_advisory_xact_lock(7365420001)';
