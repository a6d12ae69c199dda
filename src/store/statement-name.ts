import { createHash } from 'node:crypto';

/**
 * A prepared-statement name for a statement built from a few shapes (a row count, an
 * optional part): the prefix says what it is, a digest of the text tells the shapes
 * apart, as `prepareAs` needs one text per name.
 */
export function statementName(prefix: string, sql: string): string {
  return `${prefix}-${createHash('sha1').update(sql).digest('hex').slice(0, 12)}`;
}
