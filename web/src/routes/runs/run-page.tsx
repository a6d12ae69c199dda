import { useParams } from '@tanstack/react-router';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { AddToDataset } from './add-to-dataset.tsx';
import { FeedbackRuns } from './feedback-runs.tsx';
import { RunFeedback } from './run-feedback.tsx';
import { useRunLookup } from './run-queries.ts';
import { RunSearch } from './run-search.tsx';
import { CallSummary, RunSummary } from './run-summary.tsx';
import { RunTimeline } from './run-timeline.tsx';

/** `/runs`: find a run or call by id. */
export function RunsPage() {
  return (
    <>
      <h1>Runs</h1>
      <p className="muted">Every agent run and gateway call has a page. Open one from Usage, from the playground, or by its id.</p>
      <RunSearch />
      <FeedbackRuns />
    </>
  );
}

/** `/runs/{id}`: what an agent run did, step by step, or a gateway call's usage row. */
export function RunPage() {
  const { runId } = useParams({ from: '/app/runs/$runId' });
  const found = useRunLookup(runId);
  return (
    <>
      <h1>{found.data?.kind === 'call' ? 'Call' : 'Run'}</h1>
      <RunSearch key={runId} initial={runId} />
      {found.isPending && <Loading what="the run" />}
      {found.error && <ErrorNote error={found.error} />}
      {found.data?.kind === 'call' && (
        <section className="card" aria-labelledby="call-title">
          <h2 id="call-title">Gateway call</h2>
          <CallSummary call={found.data.call} />
        </section>
      )}
      {found.data?.kind === 'run' && (
        <>
          <section className="card" aria-labelledby="run-summary-title">
            <div className="section-header">
              <h2 id="run-summary-title">Summary</h2>
              <AddToDataset origin={{ run_id: found.data.run.run_id }} />
            </div>
            <RunSummary run={found.data.run} />
          </section>
          <section className="card" aria-labelledby="run-steps-title">
            <h2 id="run-steps-title">Steps</h2>
            <RunTimeline steps={found.data.run.steps} runAgent={found.data.run.agent_id} />
          </section>
          <RunFeedback id={found.data.run.run_id} />
        </>
      )}
    </>
  );
}
