import { type FormEvent, useState } from 'react';
import { usd } from '../../api/client.ts';
import { Button } from '../../components/ui/button.tsx';
import { TextAreaField } from '../../components/ui/field.tsx';
import { type DrawnStep, type RunSummary, streamResponse } from './response-stream.ts';

/**
 * One exchange: the user's message and the run that answered it. Exchanges form a
 * tree through `previous_response_id`: editing a message or regenerating an answer
 * adds a sibling under the same parent, and the path shown is what the model saw.
 */
type Exchange = { key: number; parent: number | null; message: string; steps: DrawnStep[]; summary: RunSummary | undefined; error: string | undefined };

let nextKey = 1;

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

export function Playground({ agentId }: { agentId: string }) {
  const [exchanges, setExchanges] = useState<Exchange[]>([]);
  // Which child is shown under each parent (the branch switcher's choice).
  const [chosen, setChosen] = useState<Map<number | null, number>>(new Map());
  const [editing, setEditing] = useState<number>();
  const [busy, setBusy] = useState(false);

  const childrenOf = (parent: number | null) => exchanges.filter((exchange) => exchange.parent === parent);
  const path: Exchange[] = [];
  for (let parent: number | null = null; ; ) {
    const children = childrenOf(parent);
    const next = children.find((child) => child.key === chosen.get(parent)) ?? children.at(-1);
    if (!next) break;
    path.push(next);
    parent = next.key;
  }

  const update = (key: number, change: Partial<Exchange>) => setExchanges((current) => current.map((exchange) => (exchange.key === key ? { ...exchange, ...change } : exchange)));

  const run = async (parent: number | null, message: string) => {
    const key = nextKey++;
    const previous = parent === null ? undefined : exchanges.find((exchange) => exchange.key === parent);
    setExchanges((current) => [...current, { key, parent, message, steps: [], summary: undefined, error: undefined }]);
    setChosen((current) => new Map(current).set(parent, key));
    setBusy(true);
    try {
      const summary = await streamResponse({ model: agentId, input: message, previousResponseId: previous?.summary?.responseId ?? null }, (steps) => update(key, { steps }));
      update(key, { summary });
    } catch (caught) {
      update(key, { error: (caught as Error).message });
    } finally {
      setBusy(false);
    }
  };

  const send = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const message = String(new FormData(form).get('message') ?? '').trim();
    if (!message) return;
    form.reset();
    void run(path.at(-1)?.key ?? null, message);
  };

  return (
    <section id="playground" tabIndex={-1} className="card playground" aria-label="Playground">
      <h2>Playground</h2>
      <ol className="plain exchanges">
        {path.map((exchange) => {
          const siblings = childrenOf(exchange.parent);
          const position = siblings.findIndex((sibling) => sibling.key === exchange.key);
          const choose = (offset: number) => {
            const target = siblings[position + offset];
            if (target) setChosen((current) => new Map(current).set(exchange.parent, target.key));
          };
          return (
            <li key={exchange.key} className="exchange">
              {siblings.length > 1 && (
                <div className="branch-switcher" role="group" aria-label="Branches">
                  <Button onClick={() => choose(-1)} disabled={position === 0} aria-label="Previous branch">
                    ‹
                  </Button>
                  <span>{`${position + 1}/${siblings.length}`}</span>
                  <Button onClick={() => choose(1)} disabled={position === siblings.length - 1} aria-label="Next branch">
                    ›
                  </Button>
                </div>
              )}
              {editing === exchange.key ? (
                <form
                  onSubmit={(event) => {
                    event.preventDefault();
                    const message = String(new FormData(event.currentTarget).get('edited') ?? '').trim();
                    setEditing(undefined);
                    if (message) void run(exchange.parent, message);
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
                  <Button onClick={() => setEditing(exchange.key)} disabled={busy} aria-label={`Edit message: ${exchange.message}`}>
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
                  </p>
                )}
                {exchange.summary && (
                  <Button className="regenerate" variant="ghost" onClick={() => void run(exchange.parent, exchange.message)} disabled={busy}>
                    Regenerate
                  </Button>
                )}
              </div>
            </li>
          );
        })}
      </ol>
      <form onSubmit={send} className="form-grid">
        <TextAreaField
          label="Message"
          name="message"
          rows={3}
          required
          aria-describedby="playground-keys"
          onKeyDown={(event) => {
            // Enter (or Ctrl/Cmd+Enter) sends, Shift+Enter breaks the line, as in chat apps; never mid-composition (IME).
            if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
            event.preventDefault();
            if (!busy) event.currentTarget.form?.requestSubmit();
          }}
        />
        <p id="playground-keys" className="field-hint">
          Enter sends · Shift+Enter for a new line
        </p>
        <Button type="submit" variant="primary" disabled={busy}>
          Send
        </Button>
      </form>
    </section>
  );
}
