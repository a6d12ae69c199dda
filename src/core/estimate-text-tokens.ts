/**
 * Tokens of a text, estimated without a tokenizer, for usage the upstream did not report
 * (Gemini embeddings, moderations, streams cut before their usage event).
 *
 * About 4 characters make a token in English and most alphabetic scripts, but not in
 * Chinese, Japanese or Korean: the providers' tokenizers give about one token per Han
 * character, kana or Hangul syllable (often more for rare characters), so "characters / 4"
 * would bill a CJK text at a quarter of its tokens. Those characters count one token each;
 * everything else four characters a token.
 */
const CJK_RANGES =
  '[\u1100-\u11FF\u2E80-\u2FDF\u3000-\u303F\u3040-\u30FF\u3100-\u312F\u3130-\u318F\u31A0-\u31FF\u3200-\u9FFF\uA960-\uA97F\uAC00-\uD7FF\uF900-\uFAFF\uFF00-\uFFEF]|[\uD840-\uD87F][\uDC00-\uDFFF]';
const CJK = new RegExp(CJK_RANGES, 'g');
/** Without the global flag: a test that allocates nothing, for the common case of no CJK at all. */
const HAS_CJK = new RegExp(CJK_RANGES);

const countCjk = (text: string): number => (HAS_CJK.test(text) ? (text.match(CJK)?.length ?? 0) : 0);

export function estimateTextTokens(text: string): number {
  const cjk = countCjk(text);
  if (cjk === 0) return Math.ceil(text.length / 4);
  const other = text.replace(CJK, '').length;
  return cjk + Math.ceil(other / 4);
}

/** Incremental form for streamed text: add deltas as they come, read the estimate at the end. */
export class TextTokenEstimate {
  #cjk = 0;
  #other = 0;

  add(delta: string): void {
    const cjk = countCjk(delta);
    this.#cjk += cjk;
    this.#other += cjk === 0 ? delta.length : delta.replace(CJK, '').length;
  }

  get tokens(): number {
    return this.#cjk + Math.ceil(this.#other / 4);
  }
}
