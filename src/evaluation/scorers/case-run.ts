import type { CaseExpectations } from '../case-expectations.ts';

/** One thing a run did, in order: what it was given, what it retrieved, the tools it called and what they returned, what it said. */
export type TranscriptEntry =
  | { kind: 'input'; role: 'system' | 'user' | 'assistant'; text: string }
  | { kind: 'retrieval'; query: string; hits: Array<{ source: string; title: string | null }>; agent?: string }
  | { kind: 'tool-call'; name: string; arguments: string; agent?: string }
  | { kind: 'tool-result'; name: string; ok: boolean; output: string; agent?: string }
  | { kind: 'answer'; text: string; agent?: string };

/** A case as the agent ran it: the whole run, not only its last message. */
export type CaseRun = {
  /** The run's final answer (its last assistant text). */
  answer: string;
  transcript: TranscriptEntry[];
  latencyMs: number;
  costMicros: number;
};

/** What a scorer reads of the case besides the run. */
export type ScoredCase = { reference: string | null; expect: CaseExpectations | null };

/**
 * One scorer's verdict on one case: a score from 0 to 1, or none when the scorer does not
 * apply (no reference, no such expectation) or failed (`error`, e.g. a malformed judge answer).
 */
export type ScoreResult = { scorer: string; type: string; score: number | null; reason: string; error?: string };

/** A scorer ready to run; `costMicros` is what scoring spent (a judge's model call), added to the case's cost. */
export type Scorer = { name: string; type: string; score(run: CaseRun, testCase: ScoredCase): Promise<{ result: ScoreResult; costMicros: number }> };

/** The tool calls of a run, each with the result that answered it (matched in order by name). */
export function toolCallsOf(transcript: readonly TranscriptEntry[]): Array<{ name: string; arguments: string }> {
  return transcript.flatMap((entry) => (entry.kind === 'tool-call' ? [{ name: entry.name, arguments: entry.arguments }] : []));
}
