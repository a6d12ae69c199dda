import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/ui/button.tsx';
import { TextAreaField } from '../../components/ui/field.tsx';
import { usePlaygroundConversation } from './playground-conversation.ts';
import { PlaygroundExchange } from './playground-exchange.tsx';
import type { Exchange } from './playground-history.ts';
import { createConversation, streamResponse } from './response-stream.ts';

let nextKey = 1;
const localKey = () => `local-${nextKey++}`;

/** The exchanges along the chosen branch: at each fork the chosen child, else the newest. */
function chosenPath(exchanges: readonly Exchange[], chosen: ReadonlyMap<string | null, string>): Exchange[] {
  const path: Exchange[] = [];
  for (let parent: string | null = null; ; ) {
    const children = exchanges.filter((exchange) => exchange.parent === parent);
    const next = children.find((child) => child.key === chosen.get(parent)) ?? children.at(-1);
    if (!next) return path;
    path.push(next);
    parent = next.key;
  }
}

export function Playground({ agentId }: { agentId: string }) {
  const queryClient = useQueryClient();
  const [exchanges, setExchanges] = useState<Exchange[]>([]);
  // Which child is shown under each parent (the branch switcher's choice).
  const [chosen, setChosen] = useState<Map<string | null, string>>(new Map());
  const [editing, setEditing] = useState<string>();
  const [busy, setBusy] = useState(false);
  const conversation = usePlaygroundConversation(agentId, (stored) => {
    setExchanges(stored);
    setChosen(new Map());
  });
  const path = chosenPath(exchanges, chosen);

  const update = (key: string, change: Partial<Exchange>) => setExchanges((current) => current.map((exchange) => (exchange.key === key ? { ...exchange, ...change } : exchange)));

  const run = async (parent: string | null, message: string) => {
    const key = localKey();
    const previousResponseId = exchanges.find((exchange) => exchange.key === parent)?.summary?.responseId ?? null;
    setExchanges((current) => [...current, { key, parent, message, steps: [], summary: undefined, error: undefined }]);
    setChosen((current) => new Map(current).set(parent, key));
    setBusy(true);
    try {
      // A first message starts a conversation (a tree has one root, so an edited first message starts another).
      let into = conversation.conversationId;
      if (parent === null || (!previousResponseId && !into)) {
        into = await createConversation();
        conversation.remember(into);
      }
      const summary = await streamResponse({ model: agentId, input: message, previousResponseId, conversationId: previousResponseId ? undefined : into }, (steps) => update(key, { steps }));
      update(key, { summary });
    } catch (caught) {
      update(key, { error: (caught as Error).message });
    } finally {
      setBusy(false);
      void queryClient.invalidateQueries({ queryKey: ['conversations', agentId] });
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

  const startOver = () => {
    conversation.remember(undefined);
    setExchanges([]);
    setChosen(new Map());
    setEditing(undefined);
  };

  return (
    <section id="playground" tabIndex={-1} className="card playground" aria-label="Playground">
      <div className="section-header">
        <h2>Playground</h2>
        <Button onClick={startOver} disabled={busy || exchanges.length === 0}>
          New conversation
        </Button>
      </div>
      {conversation.loading && (
        <p className="muted" role="status">
          Loading the conversation…
        </p>
      )}
      <ol className="plain exchanges">
        {path.map((exchange) => (
          <PlaygroundExchange
            key={exchange.key}
            exchange={exchange}
            siblings={exchanges.filter((sibling) => sibling.parent === exchange.parent)}
            onChoose={(target) => setChosen((current) => new Map(current).set(exchange.parent, target))}
            editing={editing === exchange.key}
            onEdit={(on) => setEditing(on ? exchange.key : undefined)}
            busy={busy}
            onRun={(parent, message) => void run(parent, message)}
          />
        ))}
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
