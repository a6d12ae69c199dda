import type { EvaluationDetail } from '@contract/evaluations.ts';
import { Link, useParams } from '@tanstack/react-router';
import { usd } from '../../api/client.ts';
import { useSignedIn } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { QueryView } from '../../components/ui/query-view.tsx';
import { ErrorNote } from '../../components/ui/states.tsx';
import { AgentTabs } from '../agents/agent-tabs.tsx';
import { caseInputText } from './case-input.ts';
import { useCancelEvaluation, useEvaluation } from './evaluation-queries.ts';
import { scoreText } from './score-text.ts';
import './evaluations.css';

/** One evaluation: its progress while it runs, then each case's answer, scores and the reasons, cost and time. */
export function EvaluationPage() {
  const { agentId, evaluationId } = useParams({ from: '/app/agents/$agentId/evaluations/$evaluationId' });
  const evaluation = useEvaluation(evaluationId);
  return (
    <>
      <div className="section-header">
        <h1>
          Agent <code>{agentId}</code>
        </h1>
      </div>
      <AgentTabs agentId={agentId} current="evaluations" />
      <QueryView query={evaluation} what="the evaluation">
        {(data) => (
          <>
            <EvaluationSummary agentId={agentId} evaluation={data} />
            <CaseResults evaluation={data} />
          </>
        )}
      </QueryView>
    </>
  );
}

/** Where the evaluation stands, a way to cancel it while it runs, and each scorer's mean. */
function EvaluationSummary({ agentId, evaluation }: { agentId: string; evaluation: EvaluationDetail }) {
  const cancel = useCancelEvaluation(evaluation.id);
  const me = useSignedIn();
  const canCancel = me?.role === 'owner' || me?.role === 'admin';
  return (
    <section className="card" aria-labelledby="evaluation-heading">
      <h2 id="evaluation-heading">
        Evaluation of {evaluation.version} <span className="muted small">{evaluation.agent_version}</span> on {evaluation.dataset.name}
      </h2>
      <p role="status">
        {statusText(evaluation.status, evaluation.stop_reason)}: {evaluation.cases_done} of {evaluation.cases} cases, mean score {scoreText(evaluation.mean_score)}, cost {usd(evaluation.cost_usd)}
      </p>
      {evaluation.status === 'running' && canCancel && (
        <Button variant="danger" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
          Cancel evaluation
        </Button>
      )}
      {cancel.error && <ErrorNote error={cancel.error} />}
      {evaluation.error && <p className="field-error">{evaluation.error}</p>}
      <p className="muted small">
        Its calls are in the usage log as evaluation traffic:{' '}
        <Link to="/usage" search={{ endpoint: 'agents.evaluation', agent: agentId }}>
          evaluation usage of this agent
        </Link>
        .
      </p>
      <DataTable label="Scorers" columns={['Scorer', 'Mean', 'Cases scored', 'Errors']}>
        {evaluation.scorer_summary.map((entry) => (
          <tr key={entry.scorer}>
            <td>{entry.scorer}</td>
            <td>{scoreText(entry.mean)}</td>
            <td>{entry.scored}</td>
            <td>{entry.errors}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

/** Each case: its input, the answer, the scores with their reasons, cost, time and its run. */
function CaseResults({ evaluation }: { evaluation: EvaluationDetail }) {
  return (
    <section className="card" aria-labelledby="results-heading">
      <h2 id="results-heading">Cases</h2>
      <DataTable label="Case results" columns={['Input', 'Answer', 'Score', 'Scorers', 'Cost', 'Time', 'Run']}>
        {evaluation.results.map((result) => (
          <tr key={result.case_id}>
            <td>{caseInputText(result.input)}</td>
            <td className="eval-answer">{result.answer ?? <span className="muted">{result.error}</span>}</td>
            <td>{scoreText(result.score)}</td>
            <td>
              <ul className="eval-scores">
                {result.scores.map((score) => (
                  <li key={score.scorer}>
                    {score.scorer}: {scoreText(score.score)} <span className="muted small">{score.reason}</span>
                  </li>
                ))}
              </ul>
            </td>
            <td>{usd(result.cost_usd)}</td>
            <td>{result.latency_ms === null ? '—' : `${result.latency_ms} ms`}</td>
            <td>
              {result.run_id && (
                <Link to="/runs/$runId" params={{ runId: result.run_id }} aria-label={`Open run of “${caseInputText(result.input)}”`}>
                  Open run
                </Link>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

const STATUS_WORDS: Record<string, string> = { running: 'Running', completed: 'Completed', failed: 'Failed' };

function statusText(status: string, stopReason: string | null): string {
  if (status === 'stopped' && stopReason === 'max_cost_usd') return 'Stopped at the cost ceiling';
  if (status === 'stopped' && stopReason === 'cancelled') return 'Cancelled';
  return STATUS_WORDS[status] ?? 'Stopped';
}
