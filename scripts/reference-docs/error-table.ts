import { ERROR_CODES } from '../../src/core/errors.ts';
import { markdownTable } from './schema-rows.ts';

export const ERRORS_START = '<!-- reference:errors -->';
export const ERRORS_END = '<!-- /reference:errors -->';

/** Every error code Junction answers with, from the one code table (src/core/errors.ts). */
export function errorTable(): string {
  return markdownTable(
    ['code', 'status', 'OpenAI `type`', 'meaning'],
    Object.entries(ERROR_CODES).map(([code, spec]) => [`\`${code}\``, String(spec.status), `\`${spec.type}\``, spec.meaning]),
  );
}

/** The page with its table between the markers replaced. */
export function withErrorTable(page: string): string {
  const start = page.indexOf(ERRORS_START);
  const end = page.indexOf(ERRORS_END);
  if (start < 0 || end < start) throw new Error(`the page has no ${ERRORS_START} … ${ERRORS_END} markers`);
  return `${page.slice(0, start + ERRORS_START.length)}\n${errorTable()}\n${page.slice(end)}`;
}
