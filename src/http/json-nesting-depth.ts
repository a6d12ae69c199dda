import { JunctionError } from '../core/errors.ts';

/**
 * How deep a JSON body may nest. Parsing a deeper one is cheap, but every recursive
 * walk after it (JSON.stringify when forwarding, structuredClone, schema validation)
 * overflows the stack, so it is refused at the edge. Real requests (JSON Schemas of
 * tools, message content parts) stay far below this.
 */
export const MAX_JSON_DEPTH = 128;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether a JSON text nests arrays and objects deeper than `max`. Strings are skipped
 * with indexOf, so a body that is mostly one long string (an inline image) costs little.
 */
export function exceedsJsonDepth(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = endOfString(text, index);
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > max) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}

/** The 400 for a JSON text from `where` that nests deeper than MAX_JSON_DEPTH, if it does. */
export function deepJsonError(text: string, where: string): JunctionError | undefined {
  if (!exceedsJsonDepth(text)) return undefined;
  return new JunctionError('invalid_request', `The ${where} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
}

/** The index of the quote closing the string opened at `start` (or the text's end). */
function endOfString(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}
