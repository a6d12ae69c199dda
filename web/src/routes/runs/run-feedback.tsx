import { dateTime } from '../../api/client.ts';
import { useRunFeedback } from '../../api/feedback-queries.ts';
import { DataTable } from '../../components/ui/data-table.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { feedbackScore } from './feedback-format.ts';

/** What people said of this run's answer: every entry, newest first, with the version it counts for. */
export function RunFeedback({ id }: { id: string }) {
  const feedback = useRunFeedback(id);
  return (
    <section className="card" aria-labelledby="run-feedback-title">
      <h2 id="run-feedback-title">Feedback</h2>
      {feedback.isPending && <Loading what="the feedback" />}
      {feedback.error && <ErrorNote error={feedback.error} />}
      {feedback.data && feedback.data.data.length === 0 && <p className="muted">No feedback on this run.</p>}
      {feedback.data && feedback.data.data.length > 0 && (
        <DataTable label="Feedback" columns={['When', 'Score', 'Label', 'Comment', 'Version']}>
          {feedback.data.data.map((entry) => (
            <tr key={entry.id}>
              <td>{dateTime(new Date(entry.created_at * 1000).toISOString())}</td>
              <td>{feedbackScore(entry)}</td>
              <td>{entry.label ?? '—'}</td>
              <td>{entry.comment ?? '—'}</td>
              <td>{entry.agent_version ?? '—'}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
