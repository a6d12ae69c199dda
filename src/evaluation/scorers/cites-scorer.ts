import { basename, extname } from 'node:path';
import type { CaseRun, ScoredCase, ScoreResult } from './case-run.ts';

type Verdict = Omit<ScoreResult, 'scorer' | 'type'>;

/**
 * The share of expected knowledge documents the run both retrieved and cited. A document is
 * named by its path, its file name (with or without extension) or its title; it is cited when
 * the answer names it one of those ways.
 */
export function scoreCites(run: CaseRun, testCase: ScoredCase): Verdict {
  const expected = testCase.expect?.cites ?? [];
  if (expected.length === 0) return { score: null, reason: 'the case expects no citations' };
  const hits = run.transcript.flatMap((entry) => (entry.kind === 'retrieval' ? entry.hits : []));
  const answer = run.answer.toLowerCase();
  const problems: string[] = [];
  for (const document of expected) {
    const wanted = document.toLowerCase();
    const hit = hits.find((candidate) => namesOf(candidate).includes(wanted));
    if (!hit) problems.push(`${document} was not retrieved`);
    else if (!namesOf(hit).some((name) => answer.includes(name))) problems.push(`${document} was retrieved but not cited`);
  }
  const score = (expected.length - problems.length) / expected.length;
  return { score, reason: problems.length === 0 ? `retrieved and cited ${expected.join(', ')}` : problems.join('; ') };
}

function namesOf(hit: { source: string; title: string | null }): string[] {
  const file = basename(hit.source);
  const names = [hit.source, file, file.slice(0, file.length - extname(file).length), ...(hit.title ? [hit.title] : [])];
  return [...new Set(names.map((name) => name.toLowerCase()).filter((name) => name.length > 0))];
}
