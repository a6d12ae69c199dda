import type { RunStepView } from '@contract/runs.ts';
import { useId, useState } from 'react';
import { usd } from '../../api/client.ts';
import { Button } from '../../components/ui/button.tsx';
import { KIND_NAMES, milliseconds, type StepNode, stepTree, timeWithSeconds } from './run-format.ts';
import { StepContentView } from './step-content-view.tsx';

const HEADINGS = ['h3', 'h4', 'h5', 'h6'] as const;

/** A sub-agent's steps name its path; after a handoff, the agent handed to is named. */
function stepTitle(step: RunStepView, runAgent: string | null): string {
  let agent = '';
  if (step.agent_path) agent = ` (agent ${step.agent_path})`;
  else if (runAgent && step.agent_id !== runAgent) agent = ` (agent ${step.agent_id})`;
  return `${KIND_NAMES[step.kind]} ${step.name}${agent}`;
}

function StepItem({ node, depth, runAgent }: { node: StepNode; depth: number; runAgent: string | null }) {
  const { step } = node;
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  const Heading = HEADINGS[Math.min(depth, HEADINGS.length - 1)] ?? 'h6';
  const title = stepTitle(step, runAgent);
  const tokens = step.input_tokens + step.output_tokens > 0 ? `${step.input_tokens} in / ${step.output_tokens} out tokens` : null;
  return (
    <li className="run-step" data-kind={step.kind}>
      <Heading>{title}</Heading>
      <p className="muted small">{[step.status, tokens, `cost ${usd(step.cost_usd)}`, milliseconds(step.latency_ms), timeWithSeconds(step.started_at)].filter(Boolean).join(' · ')}</p>
      <Button aria-expanded={open} aria-controls={detailsId} onClick={() => setOpen((current) => !current)} aria-label={`${open ? 'Hide' : 'Show'} details of ${title}, step ${step.seq + 1}`}>
        {open ? 'Hide details' : 'Show details'}
      </Button>
      <div id={detailsId} hidden={!open}>
        {open && <StepContentView step={step} />}
      </div>
      {node.children.length > 0 && (
        <ol aria-label={`Steps under ${title}`}>
          {node.children.map((child) => (
            <StepItem key={child.step.id} node={child} depth={depth + 1} runAgent={runAgent} />
          ))}
        </ol>
      )}
    </li>
  );
}

/** The run's steps as a nested list: tool calls under the model call that asked for them, sub-agents' steps under their call. */
export function RunTimeline({ steps, runAgent }: { steps: RunStepView[]; runAgent: string | null }) {
  if (steps.length === 0) return <p className="muted">No steps were kept for this run (it ran before steps were recorded, or they are past the retention).</p>;
  return (
    <ol aria-label="Run steps" className="run-steps">
      {stepTree(steps).map((node) => (
        <StepItem key={node.step.id} node={node} depth={0} runAgent={runAgent} />
      ))}
    </ol>
  );
}
