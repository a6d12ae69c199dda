import { Link } from '@tanstack/react-router';

/** The page of a usage row: its agent run's steps, or the call itself for a gateway call. */
export function RunLink({ usageId, runId }: { usageId: string; runId: string | null }) {
  return (
    <Link to="/runs/$runId" params={{ runId: runId ?? usageId }} aria-label={runId ? `Run ${runId}` : `Call ${usageId}`}>
      {runId ? 'Run' : 'Call'}
    </Link>
  );
}

/** Under a playground answer: the run that produced it, found by the answer's response id. */
export function AnswerRunLink({ responseId }: { responseId: string }) {
  return (
    <Link to="/runs/$runId" params={{ runId: responseId }} className="small">
      See the run
    </Link>
  );
}
