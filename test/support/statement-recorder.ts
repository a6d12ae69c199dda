import type { Database, QueryOptions } from '../../src/store/database.ts';

/**
 * Records every statement `db` runs, and every transaction it opens (as "transaction"),
 * until `stop()`: for tests that pin down how many round trips a path costs.
 */
export function recordStatements(db: Database): { statements: string[]; stop(): void } {
  const statements: string[] = [];
  const query = db.query.bind(db);
  const transaction = db.transaction.bind(db);
  db.query = ((sql: string, params?: unknown[], options?: QueryOptions) => {
    statements.push(sql);
    return query(sql, params, options);
  }) as typeof db.query;
  db.transaction = ((work: Parameters<typeof db.transaction>[0]) => {
    statements.push('transaction');
    return transaction(work);
  }) as typeof db.transaction;
  return {
    statements,
    stop: () => {
      db.query = query;
      db.transaction = transaction;
    },
  };
}
