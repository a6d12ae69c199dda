import { usd } from '../../api/client.ts';
import { Button } from '../../components/ui/button.tsx';
import { TextAreaField } from '../../components/ui/field.tsx';
import { BranchSwitcher } from './conversation-thread.tsx';
import type { Exchange } from './playground-history.ts';
import { AnswerRunLink } from '../runs/run-link.tsx';
import { AnswerFeedback } from './answer-feedback.tsx';
import { answerRun, useAnswerRun } from './answer-run.ts';
import { AnswerSteps } from './answer-steps.tsx';
import { versionName } from './playground-version.ts';

type ExchangeProps = {
  exchange: Exchange;
  /** The exchange and its siblings (edits and regenerations of the same message). */
  siblings: Exchange[];
  onChoose: (key: string) => void;
  editing: boolean;
  onEdit: (editing: boolean) => void;
  busy: boolean;
  /** Runs a message as a new child of `parent`: an edit or a regeneration is a new branch. */
  onRun: (parent: string | null, message: string) => void;
};

/** One exchange of the playground: the branch switcher at a fork, the message (or its edit form), the answer's steps and usage. */
export function PlaygroundExchange({ exchange, siblings, onChoose, editing, onEdit, busy, onRun }: ExchangeProps) {
  const position = siblings.findIndex((sibling) => sibling.key === exchange.key);
  const recorded = useAnswerRun(exchange.summary?.responseId);
  const run = recorded && answerRun(recorded, exchange.steps);
  const version = exchange.summary?.agentVersion ?? run?.agentVersion ?? undefined;
  return (
    <li className="exchange">
      {siblings.length > 1 && (
        <BranchSwitcher
          position={position}
          count={siblings.length}
          onChoose={(offset) => {
            const target = siblings[position + offset];
            if (target) onChoose(target.key);
          }}
        />
      )}
      {editing ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const message = String(new FormData(event.currentTarget).get('edited') ?? '').trim();
            onEdit(false);
            if (message) onRun(exchange.parent, message);
          }}
        >
          <TextAreaField label="Edited message" name="edited" defaultValue={exchange.message} rows={2} />
          <Button type="submit" variant="primary">
            Send edit
          </Button>
        </form>
      ) : (
        <div className="user-message">
          <p>{exchange.message}</p>
          <Button onClick={() => onEdit(true)} disabled={busy} aria-label={`Edit message: ${exchange.message}`}>
            Edit
          </Button>
        </div>
      )}
      <div className="assistant" aria-live="polite">
        <AnswerSteps steps={exchange.steps} run={run} />
        {exchange.error && (
          <p className="field-error" role="alert">
            {exchange.error}
          </p>
        )}
        {exchange.summary && (
          <p className="muted small run-summary">
            {exchange.summary.status} · {exchange.summary.inputTokens} in / {exchange.summary.outputTokens} out tokens
            {exchange.summary.costUsd !== undefined && ` · ${usd(exchange.summary.costUsd)}`}
            {version && ` · ${versionName(version)}`}
            {exchange.summary.responseId && (
              <>
                {' · '}
                <AnswerRunLink responseId={exchange.summary.responseId} />
              </>
            )}
          </p>
        )}
        {exchange.summary && (
          <Button className="regenerate" variant="ghost" onClick={() => onRun(exchange.parent, exchange.message)} disabled={busy}>
            Regenerate
          </Button>
        )}
        {exchange.summary?.responseId && <AnswerFeedback key={exchange.summary.responseId} responseId={exchange.summary.responseId} />}
      </div>
    </li>
  );
}
