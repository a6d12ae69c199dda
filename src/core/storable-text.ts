/**
 * Why a string cannot be stored: PostgreSQL's text and jsonb refuse NUL (U+0000), and a
 * lone UTF-16 surrogate has no UTF-8 form (nor can it be sent on to a provider).
 */
export type UnstorableReason = 'nul' | 'lone_surrogate';

export function unstorableReason(text: string, allowNul = false): UnstorableReason | undefined {
  if (!text.isWellFormed()) return 'lone_surrogate';
  if (!allowNul && text.includes('\u0000')) return 'nul';
  return undefined;
}

/** Text made storable: lone surrogates become U+FFFD and NULs are dropped. */
const storableText = (text: string): string => (unstorableReason(text) ? text.toWellFormed().replaceAll('\u0000', '') : text);

/**
 * A JSON.stringify replacer that makes every string and key storable, for JSON that
 * Junction keeps but did not check at its edge (a provider's answer): one odd
 * character there must not fail the write and cut the client's answer off.
 */
export function storableJsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.every((key) => !unstorableReason(key))) return value;
  return Object.fromEntries(keys.map((key) => [storableText(key), (value as Record<string, unknown>)[key]]));
}

/** JSON text that may hold a NUL or a lone surrogate: JSON.stringify writes both as `\u` escapes. */
const MAYBE_UNSTORABLE_JSON = /\\u(?:0000|d[89a-f])/i;

/**
 * JSON.stringify for what Junction stores but did not write itself (a model's answer, a
 * tool's result): the plain, fast stringify, and the storable one only when the text shows
 * an escape that may be a NUL or a lone surrogate.
 */
export function storableJson(value: unknown): string {
  const text = JSON.stringify(value);
  return MAYBE_UNSTORABLE_JSON.test(text) ? JSON.stringify(value, storableJsonReplacer) : text;
}
