import type { EvalRunReport } from './eval-command.ts';

const score = (value: number | null | undefined) => (value == null ? '   -' : value.toFixed(2));
const usd = (value: number) => `$${value.toFixed(6)}`;
const oneLine = (text: string | null, width: number) => {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
};
const pad = (text: string, width: number) => text.padEnd(width);
/** A case's input as a row shows it: the message, or a conversation's last one. */
const inputText = (input: unknown): string => {
  if (typeof input === 'string') return input;
  const last = Array.isArray(input) ? (input.at(-1) as { content?: unknown } | undefined) : undefined;
  return typeof last?.content === 'string' ? last.content : '';
};

/** The report as a terminal reads it: one row a case, then the means and the verdict. */
export function formatEvalReport(report: EvalRunReport): string {
  const { evaluation, experiment } = report;
  const lines: string[] = [];
  lines.push(
    `agent ${evaluation.agent} ${evaluation.version} (${evaluation.agent_version ?? '?'}), dataset ${evaluation.dataset.name}: ${evaluation.status}${evaluation.stop_reason ? ` (${evaluation.stop_reason})` : ''}`,
  );
  if (experiment) {
    lines.push(`baseline ${experiment.baseline.version} (${experiment.baseline.agent_version ?? '?'})`);
    lines.push('');
    lines.push(`${pad('case', 30)} ${pad('base', 5)} ${pad('cand', 5)} ${pad('delta', 6)} answer (candidate)`);
    for (const entry of experiment.cases) {
      const delta = entry.delta === null ? '    -' : `${entry.delta >= 0 ? '+' : ''}${entry.delta.toFixed(2)}`;
      lines.push(
        `${pad(oneLine(inputText(entry.input), 30), 30)} ${pad(score(entry.baseline?.score), 5)} ${pad(score(entry.candidate?.score), 5)} ${pad(delta, 6)} ${entry.regression ? 'REGRESSION ' : ''}${oneLine(entry.candidate?.answer ?? entry.candidate?.error ?? '', 60)}`,
      );
    }
    lines.push('');
    for (const entry of [...experiment.scorers.filter((scorer) => scorer.baseline.n + scorer.candidate.n > 0), experiment.overall]) {
      const { difference } = entry;
      lines.push(
        `${pad(entry.scorer, 16)} baseline ${score(entry.baseline.mean)}  candidate ${score(entry.candidate.mean)}  difference ${score(difference.mean)} [${score(difference.low)}, ${score(difference.high)}] (95%, n=${difference.n})`,
      );
    }
  } else {
    lines.push('');
    lines.push(`${pad('case', 30)} ${pad('score', 5)} ${pad('cost', 11)} ${pad('ms', 7)} answer`);
    for (const result of evaluation.results) {
      lines.push(
        `${pad(oneLine(inputText(result.input), 30), 30)} ${pad(score(result.score), 5)} ${pad(usd(result.cost_usd), 11)} ${pad(String(result.latency_ms ?? '-'), 7)} ${oneLine(result.answer ?? result.error, 60)}`,
      );
    }
    lines.push('');
    // A default scorer the dataset gave nothing to check is left out.
    for (const entry of evaluation.scorer_summary.filter((summary) => summary.scored + summary.errors > 0))
      lines.push(`${pad(entry.scorer, 16)} mean ${score(entry.mean)} over ${entry.scored} cases${entry.errors > 0 ? `, ${entry.errors} errors` : ''}`);
  }
  lines.push(`mean score ${score(evaluation.mean_score)}, cost ${usd(evaluation.cost_usd)}`);
  lines.push(report.passed ? 'PASS' : `FAIL: ${report.reasons.join('; ')}`);
  return `${lines.join('\n')}\n`;
}
