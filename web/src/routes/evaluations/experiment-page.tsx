import type { ComparedCaseView, ExperimentView } from '@contract/evaluations.ts';
import { Link, useParams } from '@tanstack/react-router';
import { usd } from '../../api/client.ts';
import { DataTable } from '../../components/ui/data-table.tsx';
import { LineDiff } from '../../components/ui/line-diff.tsx';
import { QueryView } from '../../components/ui/query-view.tsx';
import { AgentTabs } from '../agents/agent-tabs.tsx';
import { caseInputText } from './case-input.ts';
import { useExperiment } from './evaluation-queries.ts';
import { deltaText, intervalText, scoreText } from './score-text.ts';
import './evaluations.css';

/** Two versions on one dataset side by side: means with 95% intervals, then every case, regressions first. */
export function ExperimentPage() {
  const { agentId, experimentId } = useParams({ from: '/app/agents/$agentId/experiments/$experimentId' });
  const experiment = useExperiment(experimentId);
  return (
    <>
      <div className="section-header">
        <h1>
          Agent <code>{agentId}</code>
        </h1>
      </div>
      <AgentTabs agentId={agentId} current="evaluations" />
      <QueryView query={experiment} what="the experiment">
        {(data) => <ExperimentResults experiment={data} />}
      </QueryView>
    </>
  );
}

/** Where the experiment stands: each side's progress while it runs, then its regressions and whether they matter. */
function progressText({ status, baseline, candidate, regressions, regressed }: ExperimentView): string {
  if (status === 'running') return `Running: baseline ${baseline.cases_done} of ${baseline.cases}, candidate ${candidate.cases_done} of ${candidate.cases} cases.`;
  const counted = regressions === 1 ? '1 regression' : `${regressions} regressions`;
  return `${counted}${regressed ? ': the candidate is worse beyond the 95% interval.' : '.'}`;
}

function ExperimentResults({ experiment }: { experiment: ExperimentView }) {
  const { baseline, candidate } = experiment;
  const sideName = (side: ExperimentView['baseline']) => `${side.version} (${side.agent_version ?? '?'})`;
  return (
    <>
      <section className="card" aria-labelledby="experiment-heading">
        <h2 id="experiment-heading">
          {sideName(candidate)} against {sideName(baseline)} on {baseline.dataset.name}
        </h2>
        <p role="status">{progressText(experiment)}</p>
        <DataTable label="Scores compared" columns={['Scorer', 'Baseline', 'Candidate', 'Difference (95% interval)']}>
          {[...experiment.scorers.filter((entry) => entry.baseline.n + entry.candidate.n > 0), experiment.overall].map((entry) => (
            <tr key={entry.scorer}>
              <td>{entry.scorer === 'overall' ? <strong>Overall</strong> : entry.scorer}</td>
              <td>{intervalText(entry.baseline)}</td>
              <td>{intervalText(entry.candidate)}</td>
              <td>{intervalText(entry.difference)}</td>
            </tr>
          ))}
        </DataTable>
        <p className="muted small">
          Intervals: percentile bootstrap over the cases, 95%. Cost: baseline {usd(baseline.cost_usd)}, candidate {usd(candidate.cost_usd)}.
        </p>
        <p className="small">
          <Link to="/agents/$agentId/evaluations/$evaluationId" params={{ agentId: experiment.agent, evaluationId: baseline.id }}>
            Baseline evaluation
          </Link>
          {' · '}
          <Link to="/agents/$agentId/evaluations/$evaluationId" params={{ agentId: experiment.agent, evaluationId: candidate.id }}>
            Candidate evaluation
          </Link>
        </p>
      </section>
      <section className="card" aria-labelledby="cases-heading">
        <h2 id="cases-heading">Cases, regressions first</h2>
        <DataTable label="Cases compared" columns={['Input', 'Baseline answer', 'Candidate answer', 'Baseline', 'Candidate', 'Change', 'Cost', 'Time']}>
          {experiment.cases.map((entry) => (
            <CaseRow key={entry.case_id} entry={entry} />
          ))}
        </DataTable>
      </section>
    </>
  );
}

function CaseRow({ entry }: { entry: ComparedCaseView }) {
  const { baseline, candidate } = entry;
  const changed = entry.diff.some((line) => line.kind !== 'same');
  return (
    <tr className={entry.regression ? 'eval-regression' : undefined}>
      <th scope="row">
        {entry.regression && <span className="eval-badge">Regression</span>} {caseInputText(entry.input)}
      </th>
      <td className="eval-answer">{answerCell(baseline, `of the baseline for “${caseInputText(entry.input)}”`)}</td>
      <td className="eval-answer">
        {answerCell(candidate, `of the candidate for “${caseInputText(entry.input)}”`)}
        {changed && (
          <details>
            <summary>Line diff</summary>
            <LineDiff label="Answer changes from baseline to candidate" lines={entry.diff} />
          </details>
        )}
      </td>
      <td>{scoreText(baseline?.score)}</td>
      <td>{scoreText(candidate?.score)}</td>
      <td>{deltaText(entry.delta)}</td>
      <td>
        {usd(baseline?.cost_usd ?? 0)} / {usd(candidate?.cost_usd ?? 0)}
      </td>
      <td>
        {baseline?.latency_ms ?? '—'} / {candidate?.latency_ms ?? '—'} ms
      </td>
    </tr>
  );
}

/** A side's answer (or why there is none) and a link to its run, named apart (`run`) for readers that list links. */
function answerCell(side: ComparedCaseView['baseline'], run: string) {
  if (!side) return <span className="muted">not run</span>;
  return (
    <>
      {side.answer ?? <span className="muted">{side.error ?? side.status}</span>}
      {side.run_id && (
        <div className="small">
          <Link to="/runs/$runId" params={{ runId: side.run_id }} aria-label={`Open run ${run}`}>
            Open run
          </Link>
        </div>
      )}
    </>
  );
}
