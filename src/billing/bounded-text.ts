/**
 * Text that PostgreSQL can store: well-formed UTF-16 (a lone surrogate cannot become
 * UTF-8, and jsonb refuses its escape), no NUL (text columns refuse it), at most `max`
 * characters. Usage rows carry client-chosen strings (a model id, an endpoint); one
 * malformed string must never make a whole settlement batch fail.
 */
export function boundedText(value: string | null, max = 256): string | null {
  if (value === null) return null;
  let text = value.length > max ? value.slice(0, max) : value;
  if (!text.isWellFormed()) text = text.toWellFormed();
  if (text.includes('\u0000')) text = text.replaceAll('\u0000', '');
  return text;
}
