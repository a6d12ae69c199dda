import type { ScorerDeclaration } from '../../agents/scorer-declarations.ts';
import type { CaseRun, ScoredCase, ScoreResult } from './case-run.ts';
import { TIMED_OUT, withinTimeLimit } from './time-limited.ts';

type Declared<Type extends ScorerDeclaration['type']> = Extract<ScorerDeclaration, { type: Type }>;
type Verdict = Omit<ScoreResult, 'scorer' | 'type'>;

const notApplicable = (reason: string): Verdict => ({ score: null, reason });
const fold = (text: string, caseSensitive: boolean) => (caseSensitive ? text.trim() : text.trim().toLowerCase());

/** The answer equals the reference answer. */
export function scoreExact(declaration: Declared<'exact'>, run: CaseRun, testCase: ScoredCase): Verdict {
  if (testCase.reference === null) return notApplicable('the case has no reference answer');
  const same = fold(run.answer, declaration.case_sensitive) === fold(testCase.reference, declaration.case_sensitive);
  return { score: same ? 1 : 0, reason: same ? 'the answer equals the reference' : 'the answer differs from the reference' };
}

/** The share of texts the answer holds as it must (any case), each forbidden text absent counting as one held. */
export function scoreContains(declaration: Declared<'contains'>, run: CaseRun, testCase: ScoredCase): Verdict {
  const required = declaration.value !== undefined ? [declaration.value] : (testCase.expect?.must_contain ?? []);
  const forbidden = declaration.value !== undefined ? [] : (testCase.expect?.must_not_contain ?? []);
  if (required.length + forbidden.length === 0) return notApplicable('nothing to look for: no value and no must_contain or must_not_contain in the case');
  const answer = run.answer.toLowerCase();
  const missing = required.filter((text) => !answer.includes(text.toLowerCase()));
  const present = forbidden.filter((text) => answer.includes(text.toLowerCase()));
  const held = required.length - missing.length + forbidden.length - present.length;
  const problems = [...(missing.length > 0 ? [`missing ${missing.map(quote).join(', ')}`] : []), ...(present.length > 0 ? [`mentions ${present.map(quote).join(', ')}`] : [])];
  return { score: held / (required.length + forbidden.length), reason: problems.length === 0 ? 'holds every text it must, none it must not' : problems.join('; ') };
}

/** The answer matches the pattern. */
export function scoreRegex(declaration: Declared<'regex'>, run: CaseRun, testCase: ScoredCase): Verdict {
  const source = declaration.pattern ?? testCase.expect?.regex;
  if (source === undefined) return notApplicable('no pattern: none given and no regex in the case');
  const pattern = new RegExp(source, 'u');
  const matched = withinTimeLimit(() => pattern.test(run.answer));
  if (matched === TIMED_OUT) return { score: null, reason: 'the pattern took too long on this answer', error: 'pattern_timeout' };
  return { score: matched ? 1 : 0, reason: matched ? `matches /${source}/` : `does not match /${source}/` };
}

const quote = (text: string) => `"${text.length > 60 ? `${text.slice(0, 60)}…` : text}"`;
