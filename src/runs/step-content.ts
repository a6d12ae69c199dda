/** The longest text a step keeps of one prompt, answer, argument or result. */
export const STEP_TEXT_LIMIT = 8_000;
/** The most list entries (messages, hits) a step keeps. */
const LIST_LIMIT = 50;
const MAX_DEPTH = 6;

const CUT_MARKER = (dropped: number) => `… [cut: ${dropped} more characters]`;

/** Object fields whose values are credentials wherever they appear (headers, configs): kept as a name only. */
const SECRET_FIELD = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api[-_]?key|headers|password|secret|token|access[-_]?token)$/i;

/** Key-shaped strings: Junction keys, common provider keys and bearer credentials. */
const SECRET_TEXT = /\b(?:sk|pk)-[A-Za-z0-9_-]{16,}|\bAIza[0-9A-Za-z_-]{20,}|\bBearer\s+[A-Za-z0-9._~+/=-]{12,}/g;

/** A text cut to the bound with a visible marker, key-shaped strings replaced. */
export function boundText(text: string, limit = STEP_TEXT_LIMIT): string {
  const cleaned = text.replace(SECRET_TEXT, '[redacted]');
  return cleaned.length > limit ? cleaned.slice(0, limit) + CUT_MARKER(cleaned.length - limit) : cleaned;
}

/** Any JSON-like value made safe to store: texts bounded and cleaned, credential fields dropped, lists and depth capped. */
export function boundContent(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return boundText(value);
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? Number(value) : value;
  if (depth >= MAX_DEPTH) return '[cut: nested too deep]';
  if (Array.isArray(value)) {
    const kept = value.slice(0, LIST_LIMIT).map((entry) => boundContent(entry, depth + 1));
    return value.length > LIST_LIMIT ? [...kept, `[cut: ${value.length - LIST_LIMIT} more entries]`] : kept;
  }
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (entry === undefined || typeof entry === 'function') continue;
    out[key] = SECRET_FIELD.test(key) ? '[redacted]' : boundContent(entry, depth + 1);
  }
  return out;
}
