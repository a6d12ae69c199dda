/**
 * The members of a flat JSON object read by hand, for the few a stream's scanner needs
 * (text-delta-scanner.ts): a chunk's opening (its id and model) and the usage object at
 * its end. In the gateway's stream profiles each JSON.parse of those small texts cost
 * about 2.5-3 µs, whatever their length, most of it building an object the mapping
 * reads two or three fields of.
 *
 * Only the usual shape is read: `"key":value` pairs with no spaces, keys and strings
 * without escapes or control characters, numbers as JSON writes them, and null. Anything
 * else (escapes, spaces, true or false, a nested object or array, malformed text) makes
 * the scan decline, and the caller lets JSON.parse decide.
 */
export type FlatValue = string | number | null;

/** A JSON number at the sticky position, as the grammar allows it (no leading zeros, no bare dot). */
const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** A character JSON forbids raw inside a string (JSON.parse rejects it). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters JSON forbids raw in a string, matched on purpose
export const CONTROL_CHARACTER = /[\u0000-\u001f]/;

/** A string JSON.parse would give back unchanged: no escapes to decode, no raw control character. */
const isPlainText = (text: string): boolean => !text.includes('\\') && !CONTROL_CHARACTER.test(text);

/**
 * Calls `visit` with each member of `text` between `from` and `to` (the inside of an
 * object, without its braces) in order, and returns true when the whole span is such
 * members. False as soon as the span strays from the usual shape or `visit` returns false.
 */
export function scanFlatMembers(text: string, from: number, to: number, visit: (key: string, value: FlatValue) => boolean): boolean {
  let at = from;
  if (at === to) return true;
  for (;;) {
    if (text.charCodeAt(at) !== 0x22) return false;
    const keyEnd = text.indexOf('"', at + 1);
    if (keyEnd < 0 || keyEnd >= to || text.charCodeAt(keyEnd + 1) !== 0x3a) return false;
    const key = text.slice(at + 1, keyEnd);
    if (!isPlainText(key)) return false;
    const valueStart = keyEnd + 2;
    let value: FlatValue;
    let valueEnd: number;
    const first = text.charCodeAt(valueStart);
    if (first === 0x22) {
      valueEnd = text.indexOf('"', valueStart + 1) + 1;
      if (valueEnd === 0 || valueEnd > to) return false;
      value = text.slice(valueStart + 1, valueEnd - 1);
      if (!isPlainText(value)) return false;
    } else if (first === 0x6e) {
      valueEnd = valueStart + 4;
      if (text.slice(valueStart, valueEnd) !== 'null') return false;
      value = null;
    } else {
      JSON_NUMBER.lastIndex = valueStart;
      if (!JSON_NUMBER.test(text)) return false;
      valueEnd = JSON_NUMBER.lastIndex;
      value = Number(text.slice(valueStart, valueEnd));
    }
    if (valueEnd > to || !visit(key, value)) return false;
    if (valueEnd === to) return true;
    if (text.charCodeAt(valueEnd) !== 0x2c) return false;
    at = valueEnd + 1;
  }
}
