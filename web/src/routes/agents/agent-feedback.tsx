import { dateTime } from '../../api/client.ts';
import { useFeedbackSummary } from '../../api/feedback-queries.ts';
import { DataTable } from '../../components/ui/data-table.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';

const versionName = (version: string | null) => (version === null ? 'unknown' : version);

/** The agent's feedback per version, the version rated most recently first: is a new version answering better? */
export function AgentFeedback({ agentId }: { agentId: string }) {
  const summary = useFeedbackSummary(agentId);
  return (
    <section className="card" aria-labelledby="agent-feedback-title">
      <h2 id="agent-feedback-title">Feedback by version</h2>
      {summary.isPending && <Loading what="the feedback" />}
      {summary.error && <ErrorNote error={summary.error} />}
      {summary.data && summary.data.versions.length === 0 && (
        <p className="muted">No feedback yet: rate answers in the playground, or send it from your app with POST /agents/v1/responses/&#123;id&#125;/feedback.</p>
      )}
      {summary.data && summary.data.versions.length > 0 && (
        <DataTable label="Feedback by version" columns={['Version', 'Entries', 'Mean score', 'Up', 'Down', 'Last given']}>
          {summary.data.versions.map((entry) => (
            <tr key={versionName(entry.version)}>
              <td>{versionName(entry.version)}</td>
              <td>{entry.count}</td>
              <td>{entry.mean_score.toFixed(2)}</td>
              <td>{entry.up}</td>
              <td>{entry.down}</td>
              <td>{dateTime(entry.last_at)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
