/**
 * Settings every session of both engines starts with, so a search is one statement rather
 * than a transaction that sets them first (three more round trips, which showed in
 * knowledge search's tail). Iterative scan keeps an HNSW scan returning candidates when
 * the account and collection filter rejects the first ones the graph offers; relaxed
 * order is fine because callers only use the rank. Settings of an extension not loaded
 * yet are kept as placeholders until it loads.
 *
 * JIT is off: these sessions run short statements, and a prepared statement's generic
 * plan costs a branch it never runs (knowledge search's other-sized scope) as if it read
 * a third of the table, which is past jit_above_cost: PostgreSQL would then spend far longer
 * compiling a large store's search than running it. PGlite has no JIT; the setting is a no-op
 * there.
 */
export const VECTOR_SETTINGS: ReadonlyArray<readonly [name: string, value: string]> = [
  ['hnsw.iterative_scan', 'relaxed_order'],
  ['jit', 'off'],
];

/** pgvector's default `hnsw.ef_search`: a search for at most this many rows needs no setting of its own. */
export const DEFAULT_EF_SEARCH = 40;

export const VECTOR_SESSION_SETTINGS = VECTOR_SETTINGS.map(([name, value]) => `SET ${name} = ${value}`).join('; ');
