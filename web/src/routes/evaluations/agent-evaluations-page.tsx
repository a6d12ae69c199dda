import type { EvaluationView } from '@contract/evaluations.ts';
import { Link, useParams } from '@tanstack/react-router';
import { dateTime, usd } from '../../api/client.ts';
import { useSignedIn } from '../../api/queries.ts';
import { DataTable } from '../../components/ui/data-table.tsx';
import { ListView } from '../../components/ui/query-view.tsx';
import { AgentTabs } from '../agents/agent-tabs.tsx';
import { useEvaluations, useExperiments } from './evaluation-queries.ts';
import { scoreText } from './score-text.ts';
import { StartEvaluationForm } from './start-evaluation-form.tsx';

/** An agent's evaluations and experiments: start one (admins and owners), follow them, open their results. */
export function AgentEvaluationsPage() {
  const { agentId } = useParams({ from: '/app/agents/$agentId/evaluations' });
  const me = useSignedIn();
  const canStart = me?.role === 'owner' || me?.role === 'admin';
  const evaluations = useEvaluations(agentId);
  const experiments = useExperiments();
  const ownExperiments = (experiments.data?.data ?? []).filter((experiment) => experiment.agent === agentId);

  return (
    <>
      <div className="section-header">
        <h1>
          Agent <code>{agentId}</code>
        </h1>
      </div>
      <AgentTabs agentId={agentId} current="evaluations" />
      {canStart ? <StartEvaluationForm agentId={agentId} /> : <p className="muted">Owners and admins start evaluations; you can read them.</p>}
      <section className="card" aria-labelledby="evaluations-heading">
        <h2 id="evaluations-heading">Evaluations</h2>
        <ListView query={evaluations} what="evaluations" empty="No evaluations of this agent yet.">
          {(list) => <EvaluationsTable agentId={agentId} evaluations={list} />}
        </ListView>
      </section>
      <section className="card" aria-labelledby="experiments-heading">
        <h2 id="experiments-heading">Experiments</h2>
        {ownExperiments.length === 0 ? (
          <p className="muted">No experiments yet: start an evaluation with “Compare with”.</p>
        ) : (
          <ul>
            {ownExperiments.map((experiment) => (
              <li key={experiment.id}>
                <Link to="/agents/$agentId/experiments/$experimentId" params={{ agentId, experimentId: experiment.id }}>
                  Experiment of {dateTime(experiment.created_at)}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

function EvaluationsTable({ agentId, evaluations }: { agentId: string; evaluations: EvaluationView[] }) {
  return (
    <DataTable label="Evaluations" columns={['Started', 'Version', 'Dataset', 'Status', 'Cases', 'Mean score', 'Cost']}>
      {evaluations.map((evaluation) => (
        <tr key={evaluation.id}>
          <td>
            <Link to="/agents/$agentId/evaluations/$evaluationId" params={{ agentId, evaluationId: evaluation.id }}>
              {dateTime(evaluation.created_at)}
            </Link>
          </td>
          <td>
            {evaluation.version} <span className="muted small">{evaluation.agent_version}</span>
          </td>
          <td>{evaluation.dataset.name}</td>
          <td>{evaluation.status}</td>
          <td>
            {evaluation.cases_done} of {evaluation.cases}
          </td>
          <td>{scoreText(evaluation.mean_score)}</td>
          <td>{usd(evaluation.cost_usd)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
