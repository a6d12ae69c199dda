import type { ConversationDetail, ConversationNode, RunUsage } from '@contract/conversations.ts';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import { dateTime, usd } from '../../api/client.ts';
import { Button } from '../../components/ui/button.tsx';
import { AddToDataset } from '../runs/add-to-dataset.tsx';
import { type AnswerStep, answerSteps, branchPath, indexTree, runsOf, siblingsOf, type Tree, turnsOf } from './conversation-tree.ts';

/** The ‹ n/m › control at a fork: which of a message's versions (edits, regenerations) the branch shows. */
export function BranchSwitcher({ position, count, onChoose }: { position: number; count: number; onChoose: (offset: number) => void }) {
  return (
    <fieldset className="branch-switcher unframed" aria-label="Branches">
      <Button onClick={() => onChoose(-1)} disabled={position === 0} aria-label="Previous branch">
        ‹
      </Button>
      <span>{`${position + 1}/${count}`}</span>
      <Button onClick={() => onChoose(1)} disabled={position === count - 1} aria-label="Next branch">
        ›
      </Button>
    </fieldset>
  );
}

function StepView({ step }: { step: AnswerStep }) {
  if (step.kind === 'reasoning') {
    return (
      <details className="step reasoning">
        <summary>Reasoning</summary>
        <p>{step.text}</p>
      </details>
    );
  }
  if (step.kind === 'tool') {
    return (
      <section className="step tool" aria-label={`Tool call ${step.name}`}>
        <p>
          Tool <code>{step.name}</code>
          {step.isError && <strong> (failed)</strong>}
        </p>
        {step.arguments && (
          <figure className="unframed" aria-label="Arguments">
            <pre>{step.arguments}</pre>
          </figure>
        )}
        <figure className="unframed" aria-label="Result">
          <pre>{step.result ?? 'no result stored'}</pre>
        </figure>
      </section>
    );
  }
  return <p className="step answer">{step.text}</p>;
}

/** What the runs of one answer were billed (their usage rows), or what the answer itself recorded. */
function TurnUsage({ answer, runs }: { answer: readonly ConversationNode[]; runs: ReadonlyMap<string, RunUsage> }) {
  const billed = runsOf(answer).flatMap((id) => {
    const usage = runs.get(id);
    return usage ? [usage] : [];
  });
  if (billed.length > 0) {
    return (
      <ul className="plain muted small run-summary" aria-label="Run usage">
        {billed.map((run) => (
          <li key={run.run_id}>
            <Link to="/runs/$runId" params={{ runId: run.run_id }}>
              Run <code>{run.run_id}</code>
            </Link>{' '}
            · {run.calls} {run.calls === 1 ? 'call' : 'calls'} · {run.input_tokens} in / {run.output_tokens} out tokens · {usd(run.cost_usd)}
          </li>
        ))}
      </ul>
    );
  }
  const recorded = answer.findLast((node) => node.usage !== null)?.usage;
  if (!recorded) return null;
  return (
    <p className="muted small run-summary">
      {recorded.input_tokens} in / {recorded.output_tokens} out tokens{recorded.cost_usd !== null && ` · ${usd(recorded.cost_usd)}`}
    </p>
  );
}

function NodeFork({ tree, node, onChoose }: { tree: Tree; node: ConversationNode; onChoose: (parent: string | null, child: string) => void }) {
  const { siblings, position } = siblingsOf(tree, node);
  if (siblings.length < 2) return null;
  return (
    <BranchSwitcher
      position={position}
      count={siblings.length}
      onChoose={(offset) => {
        const target = siblings[position + offset];
        if (target) onChoose(node.parent_id, target.id);
      }}
    />
  );
}

/** A stored conversation: the branch chosen at each fork, turn by turn, each answer with its tool steps and its runs' usage. */
export function ConversationThread({ conversation }: { conversation: ConversationDetail }) {
  const [chosen, setChosen] = useState<Map<string | null, string>>(new Map());
  const tree = indexTree(conversation.messages);
  const runs = new Map(conversation.runs.map((run) => [run.run_id, run]));
  const choose = (parent: string | null, child: string) => setChosen((current) => new Map(current).set(parent, child));
  const turns = turnsOf(branchPath(tree, chosen));
  if (turns.length === 0) return <p className="muted">No messages yet.</p>;
  return (
    <ol className="plain exchanges" aria-label="Turns">
      {turns.map((turn, index) => (
        <li key={turn.opening.id} className="exchange">
          <NodeFork tree={tree} node={turn.opening} onChoose={choose} />
          {turn.opening.role === 'user' && (
            <div className="user-message">
              <p>
                {turn.opening.deleted ? <em>(deleted)</em> : turn.opening.text}
                {turn.opening.attachments.length > 0 && <span className="muted small"> (attached: {turn.opening.attachments.join(', ')})</span>}
              </p>
              <p className="muted small">{dateTime(turn.opening.created_at)}</p>
            </div>
          )}
          <div className="assistant">
            {turn.opening.role !== 'user' && answerSteps([turn.opening]).map((step) => <StepView key={step.id} step={step} />)}
            {segmentsAtForks(tree, turn.answer).map((segment) => (
              <div key={segment[0]?.id}>
                {segment[0] && <NodeFork tree={tree} node={segment[0]} onChoose={choose} />}
                {answerSteps(segment, turn.answer).map((step) => (
                  <StepView key={step.id} step={step} />
                ))}
              </div>
            ))}
            <TurnUsage answer={turn.answer} runs={runs} />
            {turn.answer.length > 0 && (
              <AddToDataset origin={{ conversation_id: conversation.id, item_id: turn.answer.at(-1)?.id ?? turn.opening.id }} accessibleName={`Add to dataset: turn ${index + 1}`} />
            )}
          </div>
        </li>
      ))}
    </ol>
  );
}

/** An answer cut where it forks (a client's tool result sent twice), so each fork's switcher sits where the branches part. */
function segmentsAtForks(tree: Tree, answer: readonly ConversationNode[]): ConversationNode[][] {
  const segments: ConversationNode[][] = [];
  for (const node of answer) {
    const current = segments.at(-1);
    if (!current || siblingsOf(tree, node).siblings.length > 1) segments.push([node]);
    else current.push(node);
  }
  return segments;
}
