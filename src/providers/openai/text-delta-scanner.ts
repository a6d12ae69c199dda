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
 * chunk); `learnMetadata` does the same for a stream's first chunk before any parse, and
 * hands back the id and model the mapping reports. `read` then answers for a chunk that
 * starts with that same opening and whose rest is exactly a single text delta in one of
 * the shapes below (the first chunk's assistant role and an empty refusal included): its
 * text, as JSON.parse would give it. Anything else (a finish reason, usage, tool calls,
 * other fields, malformed text) is `undefined`, and the caller parses the chunk whole as
 * before. `readFinish` does the same for the chunk with the finish reason, and `readUsage`
 * for the usage-only chunk that ends the stream.
 *
 * With these, a stream of the usual shape (a role chunk, text, a finish and a usage chunk,
 * as OpenAI and the bench upstream send them) is read without a JSON.parse. Before, its
 * first and last chunks were each parsed whole and the opening once more: about 7 µs of
 * the mapping's 10-14 per stream in the gateway's profiles. The opening's members and a
 * flat usage object are read by hand (flat-json-members.ts); other shapes are still parsed.
 */
import { isPlainRecord } from '../../core/plain-record.ts';
import type { OpenAIUsage } from './openai-wire-schemas.ts';
import { CONTROL_CHARACTER, type FlatValue, scanFlatMembers } from './flat-json-members.ts';
import { isOptionalString, isPlainUsage } from './plain-usage.ts';

const CHOICE_START = '"choices":[{"index":0,"delta":{"content":"';
/** A stream's first chunk names the role before its (usually empty) text. */
const ROLE_CHOICE_START = '"choices":[{"index":0,"delta":{"role":"assistant","content":"';
/** OpenAI's first chunk closes its delta with an empty refusal. */
const NO_REFUSAL = ',"refusal":null';
/** What may follow the text (and any empty refusal) up to the end of the choices array. */
const CHOICE_ENDS = ['},"logprobs":null,"finish_reason":null}]', '},"finish_reason":null}]', '},"finish_reason":null,"logprobs":null}]'];
/** The usage-only chunk's choices, up to its usage object. */
const USAGE_START = '"choices":[],"usage":';
/** What may follow the usage object: OpenAI's padding, then the chunk's end. */
const USAGE_CHUNK_END = /(?:,"obfuscation":"[A-Za-z0-9+/=_-]*")?\}$/;
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
    this.#opening = metadataOpening(data)?.opening;
  }

  /**
   * Learns `data`'s opening as `learn` does, without parsing the chunk whole: the opening's
   * id and model when it holds only metadata and those are text (or absent, or null), else
   * undefined (and nothing learned: parse the chunk whole).
   */
  learnMetadata(data: string): { id: string | null | undefined; model: string | null | undefined } | undefined {
    const found = metadataOpening(data);
    if (found === undefined || !isOptionalString(found.id) || !isOptionalString(found.model)) return undefined;
    this.#opening = found.opening;
    return { id: found.id as string | null | undefined, model: found.model as string | null | undefined };
  }

  /** The text of a plain text-delta chunk with the learned opening, or undefined: parse it whole. */
  read(data: string): string | undefined {
    const opening = this.#opening;
    if (opening === undefined || data.slice(0, opening.length) !== opening) return undefined;
    let textStart = opening.length + CHOICE_START.length;
    if (data.slice(opening.length, textStart) !== CHOICE_START) {
      textStart = opening.length + ROLE_CHOICE_START.length;
      if (data.slice(opening.length, textStart) !== ROLE_CHOICE_START) return undefined;
    }
    const textEnd = closingQuote(data, textStart);
    if (textEnd < 0) return undefined;
    let after = textEnd + 1;
    if (data.slice(after, after + NO_REFUSAL.length) === NO_REFUSAL) after += NO_REFUSAL.length;
    const choiceEnd = CHOICE_ENDS.find((end) => data.slice(after, after + end.length) === end);
    if (choiceEnd === undefined || !CHUNK_END.test(data.slice(after + choiceEnd.length))) return undefined;
    const text = data.slice(textStart, textEnd);
    // A raw control character is not JSON: the parser reports it.
    if (!text.includes('\\')) return CONTROL_CHARACTER.test(text) ? undefined : text;
    try {
      return JSON.parse(data.slice(textStart - 1, textEnd + 1)) as string;
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

  /**
   * The usage of the usage-only chunk that ends a stream (`"choices":[]` and a usage object
   * of the usual fields, with the learned opening), as JSON.parse would give it, or
   * undefined: parse the chunk whole.
   */
  readUsage(data: string): OpenAIUsage | undefined {
    const opening = this.#opening;
    if (opening === undefined || data.slice(0, opening.length) !== opening) return undefined;
    const usageStart = opening.length + USAGE_START.length;
    if (data.slice(opening.length, usageStart) !== USAGE_START) return undefined;
    const rest = data.slice(usageStart);
    const end = USAGE_CHUNK_END.exec(rest);
    return end === null ? undefined : usageOf(rest.slice(0, end.index));
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

/** A chunk's opening and the two of its members the mapping reports. */
type MetadataOpening = { opening: string; id: unknown; model: unknown };

/**
 * The text before `"choices":[` when it is a run of whole top-level members, all metadata;
 * undefined otherwise. Closing it with `}` must parse: a `"choices":[` met inside a nested
 * value leaves a bracket open, and then it does not. The usual opening is read by hand
 * (flat-json-members.ts); any other is left to JSON.parse.
 */
function metadataOpening(data: string): MetadataOpening | undefined {
  const at = data.indexOf('"choices":[');
  if (at < 2 || data.charCodeAt(at - 1) !== 0x2c) return undefined; // `{"choices"…` has no opening worth keeping
  const opening = data.slice(0, at);
  const found: MetadataOpening = { opening, id: undefined, model: undefined };
  let members = 0;
  const visit = (key: string, value: FlatValue): boolean => {
    if (!METADATA_KEYS.has(key)) return false;
    members += 1;
    if (key === 'id') found.id = value;
    else if (key === 'model') found.model = value;
    return true;
  };
  if (opening.charCodeAt(0) !== 0x7b || !scanFlatMembers(opening, 1, opening.length - 1, visit)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(`${opening.slice(0, -1)}}`);
    } catch {
      return undefined;
    }
    if (!isPlainRecord(parsed)) return undefined;
    const keys = Object.keys(parsed);
    for (const key of keys) if (!METADATA_KEYS.has(key)) return undefined;
    members = keys.length;
    found.id = parsed.id;
    found.model = parsed.model;
  }
  // `{,"choices"…` parses as an opening (`{}`) but is no JSON: a first chunk is read before any whole parse.
  return members > 0 ? found : undefined;
}

/**
 * A usage object's text as OpenAIUsageSchema would accept it unchanged, with the fields
 * mapUsage reads (the usual flat one read by hand, any other parsed), or undefined.
 */
function usageOf(text: string): OpenAIUsage | undefined {
  const usage: OpenAIUsage = {};
  const visit = (key: string, value: FlatValue): boolean => {
    switch (key) {
      case 'prompt_tokens':
      case 'completion_tokens':
      case 'total_tokens':
      case 'prompt_cache_hit_tokens':
        if (typeof value === 'string') return false;
        usage[key] = value;
        return true;
      case 'prompt_tokens_details':
      case 'completion_tokens_details':
        // An object of details is nested: JSON.parse reads it.
        return value === null;
      default:
        return true; // other fields pass the schema as they are, and nothing reads them
    }
  };
  if (text.charCodeAt(0) === 0x7b && text.charCodeAt(text.length - 1) === 0x7d && scanFlatMembers(text, 1, text.length - 1, visit)) return usage;
  let parsed: unknown;
  try {
    // Anything but one JSON value here (a member after the usage object) does not parse.
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isPlainRecord(parsed) && isPlainUsage(parsed) ? (parsed as OpenAIUsage) : undefined;
}
