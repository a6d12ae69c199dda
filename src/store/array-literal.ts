/** Text that must be escaped inside a quoted array element: backslash and double quote. */
const ESCAPED = /["\\]/;

/**
 * Values as one PostgreSQL array literal (`{"a","b",NULL}`), for a parameter cast with
 * `$n::text::type[]`. Every non-null element is quoted, so text holding NULL, commas,
 * braces or spaces stays that text. Built here in one pass because the drivers' own array
 * serializers allocate per element (node-postgres's was the gateway's largest allocator
 * once usage rows went as arrays) and PGlite's runs element by element on its thread.
 * Elements: strings, finite numbers, booleans, Dates (as ISO 8601 in UTC), null.
 */
export function arrayLiteral(values: readonly (string | number | boolean | Date | null)[]): string {
  let literal = '{';
  for (let index = 0; index < values.length; index += 1) {
    if (index > 0) literal += ',';
    const value = values[index];
    if (value === null || value === undefined) literal += 'NULL';
    else if (typeof value === 'string') literal += quoted(value);
    else if (typeof value === 'number') literal += finite(value);
    else if (typeof value === 'boolean') literal += value ? 'true' : 'false';
    else literal += quoted(value.toISOString());
  }
  return `${literal}}`;
}

function quoted(text: string): string {
  return ESCAPED.test(text) ? `"${text.replace(/["\\]/g, '\\$&')}"` : `"${text}"`;
}

function finite(value: number): string {
  // NaN or Infinity would reach the database as words a numeric column refuses with a vaguer error.
  if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
  return String(value);
}
