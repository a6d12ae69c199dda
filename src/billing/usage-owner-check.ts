/**
 * Usage rows of `inserted` whose account is not among `accounts` or whose key is not among
 * `keys` (the ids the statement's own owner updates returned): what the foreign keys on
 * usage_log checked row by row, counted once per statement (migration 0010).
 */
export const MISSING_OWNERS = (inserted: string, keys: string, accounts: string): string =>
  `(SELECT count(*) FROM ${inserted} i
     WHERE NOT EXISTS (SELECT 1 FROM ${accounts} a WHERE a.id = i.account_id)
        OR (i.key_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${keys} k WHERE k.id = i.key_id)))`;
