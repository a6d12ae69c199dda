import { JunctionError } from '../core/errors.ts';

/**
 * SQLSTATEs that mean "a value the client sent cannot be stored or compared", not
 * "this statement is wrong": text the database's encoding refuses, malformed
 * literals, out-of-range numbers and dates, too-long strings, bad LIMIT/OFFSET.
 */
const INVALID_INPUT_CODES = new Set([
  '22001', // string_data_right_truncation
  '22003', // numeric_value_out_of_range
  '22007', // invalid_datetime_format
  '22008', // datetime_field_overflow
  '22021', // character_not_in_repertoire (a NUL in text)
  '22025', // invalid_escape_sequence
  '2201W', // invalid_row_count_in_limit_clause
  '2201X', // invalid_row_count_in_result_offset_clause
  '22P02', // invalid_text_representation
  '22P05', // untranslatable_character (a \u0000 in jsonb)
]);

const INVALID_INPUT_MESSAGES = ['invalid byte sequence', 'unsupported Unicode escape sequence'];

/**
 * Whether a database error (or one it caused) was raised by a value from the request.
 * The edge checks (unstorable-text.ts, the routes' schemas) are the defence; this is
 * the backstop for what slipped past them, so it answers 400 rather than 500.
 */
export function isInvalidInputError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    if (typeof current !== 'object') return false;
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && INVALID_INPUT_CODES.has(code)) return true;
    if (typeof message === 'string' && INVALID_INPUT_MESSAGES.some((text) => message.includes(text))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export const invalidInput = (cause: unknown): JunctionError =>
  new JunctionError('invalid_request', 'The request holds a value the database cannot accept (text with a NUL character, a malformed identifier, or a number or date out of range).', { cause });
