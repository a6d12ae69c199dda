/**
 * Reads the text of a stream's plain text-delta chunks without parsing them whole.
 *
 * Most chunks of a chat-completions stream differ from one another only in their text: an
 * OpenAI chunk is `{"id":…,"object":…,"created":…,"model":…,"system_fingerprint":…,`
 * (the opening, the same in every chunk) then `"choices":[{"index":0,"delta":{"content":
 * "Hello"},"logprobs":null,"finish_reason":null}]` and an `"obfuscation"` padding. A
 * JSON.parse per chunk was a streamed call's largest own cost in the gateway's profiles.
 *
 * `learn` takes a chunk that was parsed whole and keeps its opening when the opening holds
 * only metadata (no usage, error, or choices: nothing the mapping reads after the first
 * chunk). `read` then answers for a chunk that starts with that same opening and whose
 * rest is exactly a single text delta in one of the shapes below: its text, as JSON.parse
 * would give it. Anything else (a role, a finish reason, usage, tool calls, other fields,
 * malformed text) is `undefined`, and the caller parses the chunk whole as before.
 * `readFinish` does the same for the chunk with the finish reason.
 */
import { isPlainRecord } from '../../core/plain-record.ts';

const CHOICE_START = '"choices":[{"index":0,"delta":{"content":"';
/** What may follow the text up to the end of the choices array. */
const CHOICE_ENDS = ['},"logprobs":null,"finish_reason":null}]', '},"finish_reason":null}]', '},"finish_reason":null,"logprobs":null}]'];
/** The finish chunk's choice up to its reason, and what may follow the reason (readFinish). */
const FINISH_START = '"choices":[{"index":0,"delta":{},';
const FINISH_SHAPES: ReadonlyArray<readonly [before: string, after: string]> = [
  ['"logprobs":null,"finish_reason":"', '"}]'],
  ['"finish_reason":"', '"}]'],
  ['"finish_reason":"', '","logprobs":null}]'],
];
/** Reasons as OpenAI-compatible servers write them (stop, length, tool_calls, content_filter…): no escapes to decode. */
const FINISH_REASON = /^[a-z_]{1,32}$/;
/** What may follow the choices: OpenAI's `usage: null` (include_usage) and its padding. */
const CHUNK_END = /^(?:,"usage":null)?(?:,"obfuscation":"[A-Za-z0-9+/=_-]*")?\}$/;
const CONTROL_CHARACTER = /[\u0000-\u001f]/;
/** Opening members that carry nothing the mapping reads after the first chunk. */
const METADATA_KEYS = new Set(['id', 'object', 'created', 'model', 'system_fingerprint', 'service_tier', 'provider']);

/*
 * Text is compared by slicing and `===` throughout, never with startsWith: in Node 20's V8,
 * startsWith compares character by character, and for a 190-character opening it took half
 * as long as JSON.parse of the whole chunk; a slice's equality is a memory compare (15×
 * faster in the same measurement).
 */
export class TextDeltaScanner {
  /** The learned opening, up to and with the comma before `"choices"`. */
  #opening: string | undefined;

  /** Keeps `data`'s opening (a chunk JSON.parse accepted) if it is metadata only; a chunk with the known opening changes nothing. */
  learn(data: string): void {
    if (this.#opening !== undefined && data.slice(0, this.#opening.length) === this.#opening) return;
    this.#opening = metadataOpening(data);
  }

  /** The text of a plain text-delta chunk with the learned opening, or undefined: parse it whole. */
  read(data: string): string | undefined {
    const opening = this.#opening;
    if (opening === undefined || data.slice(0, opening.length) !== opening) return undefined;
    const textStart = opening.length + CHOICE_START.length;
    if (data.slice(opening.length, textStart) !== CHOICE_START) return undefined;
    const textEnd = closingQuote(data, textStart);
    if (textEnd < 0) return undefined;
    const after = textEnd + 1;
    const choiceEnd = CHOICE_ENDS.find((end) => data.slice(after, after + end.length) === end);
    if (choiceEnd === undefined || !CHUNK_END.test(data.slice(after + choiceEnd.length))) return undefined;
    const text = data.slice(textStart, textEnd);
    // A raw control character is not JSON: the parser reports it.
    if (!text.includes('\\')) return CONTROL_CHARACTER.test(text) ? undefined : text;
    try {
      return JSON.parse(data.slice(textStart - 1, after)) as string;
    } catch {
      return undefined;
    }
  }

  /**
   * The finish reason of the chunk that ends the answer (an empty delta and a reason, with
   * the learned opening), or undefined: parse it whole. One parse fewer per stream.
   */
  readFinish(data: string): string | undefined {
    const opening = this.#opening;
    if (opening === undefined || data.slice(0, opening.length) !== opening) return undefined;
    const at = opening.length + FINISH_START.length;
    if (data.slice(opening.length, at) !== FINISH_START) return undefined;
    for (const [before, after] of FINISH_SHAPES) {
      if (data.slice(at, at + before.length) !== before) continue;
      const reasonStart = at + before.length;
      const reasonEnd = data.indexOf('"', reasonStart);
      if (reasonEnd < 0) return undefined;
      const reason = data.slice(reasonStart, reasonEnd);
      if (!FINISH_REASON.test(reason)) return undefined;
      if (data.slice(reasonEnd, reasonEnd + after.length) !== after) continue;
      return CHUNK_END.test(data.slice(reasonEnd + after.length)) ? reason : undefined;
    }
    return undefined;
  }
}

/** The index of the quote that closes the string whose text starts at `from` (one not escaped by an odd run of backslashes), or -1. */
function closingQuote(data: string, from: number): number {
  for (let quote = data.indexOf('"', from); quote >= 0; quote = data.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && data.charCodeAt(quote - backslashes - 1) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}

/**
 * The text before `"choices":[` when it is a run of whole top-level members, all metadata;
 * undefined otherwise. Closing it with `}` must parse: a `"choices":[` met inside a nested
 * value leaves a bracket open, and then it does not.
 */
function metadataOpening(data: string): string | undefined {
  const at = data.indexOf('"choices":[');
  if (at < 2 || data.charCodeAt(at - 1) !== 0x2c) return undefined; // `{"choices"…` has no opening worth keeping
  const opening = data.slice(0, at);
  let members: unknown;
  try {
    members = JSON.parse(`${opening.slice(0, -1)}}`);
  } catch {
    return undefined;
  }
  if (!isPlainRecord(members)) return undefined;
  for (const key of Object.keys(members)) if (!METADATA_KEYS.has(key)) return undefined;
  return opening;
}
