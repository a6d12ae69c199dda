import { usd } from '../../api/client.ts';
import { Button } from '../../components/ui/button.tsx';
import { TextAreaField } from '../../components/ui/field.tsx';
import { BranchSwitcher } from './conversation-thread.tsx';
import type { Exchange } from './playground-history.ts';
import type { DrawnStep } from './response-stream.ts';
import { AnswerRunLink } from '../runs/run-link.tsx';

function Steps({ steps }: { steps: DrawnStep[] }) {
  return (
    <>
      {steps.map((step) =>
        step.kind === 'reasoning' ? (
          <details key={step.id} className="step reasoning">
            <summary>Reasoning</summary>
            <p>{step.text}</p>
          </details>
        ) : step.kind === 'tool' ? (
          <section key={step.id} className="step tool" aria-label={`Tool call ${step.name}`}>
            <p>
              Tool <code>{step.name}</code>
            </p>
            <pre aria-label="Arguments">{step.arguments}</pre>
            <pre aria-label="Result">{step.result ?? 'running…'}</pre>
          </section>
        ) : (
          <p key={step.id} className="step answer">
            {step.text}
          </p>
        ),
      )}
    </>
  );
}

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
        <Steps steps={exchange.steps} />
        {exchange.error && (
          <p className="field-error" role="alert">
            {exchange.error}
          </p>
        )}
        {exchange.summary && (
          <p className="muted small run-summary">
            {exchange.summary.status} · {exchange.summary.inputTokens} in / {exchange.summary.outputTokens} out tokens
            {exchange.summary.costUsd !== undefined && ` · ${usd(exchange.summary.costUsd)}`}
            {exchange.summary.agentVersion && ` · version ${exchange.summary.agentVersion}`}
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
      </div>
    </li>
  );
}
