import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../http/json-nesting-depth.ts';
import { findUnstorableText } from '../http/unstorable-text.ts';
import { type CaseSource, CaseFieldsSchema } from './case-fields.ts';
import type { EvalCase, NewCase } from './dataset-repository.ts';

/** The most cases one file may add: an import is one statement, held in memory. */
export const IMPORT_CASES_LIMIT = 10_000;

export type CaseLinesResult = { ok: true; cases: NewCase[] } | { ok: false; line: number; param: string | null; message: string };

const failure = (line: number, path: readonly PropertyKey[], detail: string): CaseLinesResult => {
  const field = path.map(String).join('.');
  return { ok: false, line, param: field === '' ? null : field, message: `Line ${line}${field === '' ? '' : `, '${field}'`}: ${detail}.` };
};

/**
 * JSONL cases, one JSON object a line with `input` and optional `reference`, `expect` and
 * `tags`; blank lines are skipped. All lines are checked before any is used, so a file is
 * taken whole or refused at its first bad line (numbered from 1).
 */
export function parseCaseLines(text: string, source?: CaseSource): CaseLinesResult {
  const cases: NewCase[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = index + 1;
    const content = (lines[index] ?? '').trim();
    if (content === '') continue;
    if (cases.length >= IMPORT_CASES_LIMIT) return failure(line, [], `a file may hold at most ${IMPORT_CASES_LIMIT} cases`);
    if (exceedsJsonDepth(content)) return failure(line, [], `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch (error) {
      return failure(line, [], `not valid JSON (${error instanceof SyntaxError ? error.message : 'unreadable'})`);
    }
    const unstorable = findUnstorableText(value, { allowNul: false });
    if (unstorable) return failure(line, unstorable.path, unstorable.reason === 'nul' ? 'holds a NUL character, which cannot be stored' : 'holds text that is not valid Unicode');
    const parsed = CaseFieldsSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const keys = issue?.code === 'unrecognized_keys' ? issue.keys : [];
      if (issue?.code === 'unrecognized_keys') return failure(line, [...issue.path, ...keys.slice(0, 1)], `unknown field ${keys.map((key) => `'${key}'`).join(', ')}`);
      return failure(line, issue?.path ?? [], issue?.message ?? 'not a case');
    }
    const { input, reference, expect, tags } = parsed.data;
    cases.push({ input, reference: reference ?? null, expect: expect ?? null, tags: tags ?? [], source: source ?? null });
  }
  return { ok: true, cases };
}

/** A case as one JSONL line, with only the fields an import reads back, so export then import gives the same cases. */
export function formatCaseLine(entry: EvalCase): string {
  return JSON.stringify({
    input: entry.input,
    ...(entry.reference !== null && { reference: entry.reference }),
    ...(entry.expect !== null && { expect: entry.expect }),
    ...(entry.tags.length > 0 && { tags: entry.tags }),
  });
}
