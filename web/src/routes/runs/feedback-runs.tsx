import { FEEDBACK_RATINGS, type FeedbackRating } from '@contract/feedback.ts';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { dateTime } from '../../api/client.ts';
import { useFeedbackSearch } from '../../api/feedback-queries.ts';
import { useAgents } from '../../api/queries.ts';
import { DataTable } from '../../components/ui/data-table.tsx';
import { SelectField } from '../../components/ui/field.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { feedbackScore } from './feedback-format.ts';

const RATING_NAMES: Record<FeedbackRating, string> = { up: 'Rated up (0.5 or more)', down: 'Rated down (below 0.5)' };
const isRating = (value: string): value is FeedbackRating => (FEEDBACK_RATINGS as readonly string[]).includes(value);

/** The runs people rated, newest first, filtered by agent and rating; each opens its run page. */
export function FeedbackRuns() {
  const agents = useAgents();
  const [agentId, setAgentId] = useState('');
  const [rating, setRating] = useState<FeedbackRating | ''>('');
  const found = useFeedbackSearch({ agentId, rating });
  return (
    <section className="card" aria-labelledby="rated-runs-title">
      <h2 id="rated-runs-title">Rated runs</h2>
      <fieldset className="filters unframed" aria-label="Filter rated runs">
        <SelectField label="Agent" value={agentId} onChange={(event) => setAgentId(event.target.value)}>
          <option value="">Every agent</option>
          {(agents.data?.data ?? []).map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.id}
            </option>
          ))}
        </SelectField>
        <SelectField label="Rating" value={rating} onChange={(event) => setRating(isRating(event.target.value) ? event.target.value : '')}>
          <option value="">Any rating</option>
          {FEEDBACK_RATINGS.map((value) => (
            <option key={value} value={value}>
              {RATING_NAMES[value]}
            </option>
          ))}
        </SelectField>
      </fieldset>
      {found.isPending && <Loading what="rated runs" />}
      {found.error && <ErrorNote error={found.error} />}
      {found.data && found.data.data.length === 0 && <p className="muted">No feedback matches.</p>}
      {found.data && found.data.data.length > 0 && (
        <DataTable label="Rated runs" columns={['When', 'Agent', 'Version', 'Score', 'Comment', 'Run']}>
          {found.data.data.map((entry) => {
            const runId = entry.run_id ?? entry.response_id;
            return (
              <tr key={entry.id}>
                <td>{dateTime(new Date(entry.created_at * 1000).toISOString())}</td>
                <td>{entry.agent_id}</td>
                <td>{entry.agent_version ?? '—'}</td>
                <td>{feedbackScore(entry)}</td>
                <td>{entry.comment ?? '—'}</td>
                <td>
                  {runId ? (
                    <Link to="/runs/$runId" params={{ runId }}>
                      {runId}
                    </Link>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </section>
  );
}
