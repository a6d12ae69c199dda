import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { Button } from '../../components/ui/button.tsx';
import { TextAreaField } from '../../components/ui/field.tsx';
import { usePlaygroundConversation } from './playground-conversation.ts';
import type { Exchange } from './playground-history.ts';
import { PlaygroundTranscript } from './playground-transcript.tsx';
import { choiceValue, parseChoice, pinnedModel, type VersionChoice } from './playground-version.ts';
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

/** The version selector's state (a console agent's); a file agent has one version and no selector. */
export type PlaygroundVersion = { choices: Array<{ value: VersionChoice; label: string }>; current: VersionChoice | undefined; choose(choice: VersionChoice): void };

/** Which version answers, beside the playground's title: switching starts a new conversation. */
function VersionPicker({ version, busy }: { version: PlaygroundVersion; busy: boolean }) {
  const id = useId();
  if (version.choices.length === 0 || version.current === undefined) return null;
  return (
    <div className="playground-version">
      <label htmlFor={id}>Version to chat with</label>
      <select id={id} value={choiceValue(version.current)} disabled={busy} aria-describedby="playground-version-hint" onChange={(event) => version.choose(parseChoice(event.target.value))}>
        {version.choices.map((choice) => (
          <option key={choiceValue(choice.value)} value={choiceValue(choice.value)}>
            {choice.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The message box: Enter sends, Shift+Enter breaks the line. */
function Composer({ busy, onSend }: { busy: boolean; onSend(event: FormEvent<HTMLFormElement>): void }) {
  return (
    <form onSubmit={onSend} className="form-grid playground-composer">
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
  );
}

/** The playground's title, which version answers, and a way to start over; a note says when switching versions started over. */
function PlaygroundHeader({
  version,
  busy,
  switched,
  canStartOver,
  onStartOver,
}: {
  version: PlaygroundVersion;
  busy: boolean;
  switched: string | undefined;
  canStartOver: boolean;
  onStartOver(): void;
}) {
  return (
    <>
      <div className="section-header">
        <h2>Playground</h2>
        <div className="playground-controls">
          <VersionPicker version={version} busy={busy} />
          <Button onClick={onStartOver} disabled={busy || !canStartOver}>
            New conversation
          </Button>
        </div>
      </div>
      {version.choices.length > 0 && (
        <p id="playground-version-hint" className="muted small playground-hint" role="status">
          {switched ?? 'Switching versions starts a new conversation.'}
        </p>
      )}
    </>
  );
}

export function Playground({ agentId, version }: { agentId: string; version: PlaygroundVersion }) {
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
  const [switched, setSwitched] = useState<string>();
  const shownVersion = useRef(version.current);
  const model = pinnedModel(agentId, version.current);

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
      const summary = await streamResponse({ model, input: message, previousResponseId, conversationId: previousResponseId ? undefined : into }, (steps) => update(key, { steps }));
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

  /** A fresh conversation; `reason` says why when it was not asked for (another version now answers). */
  const startOver = (reason?: string) => {
    conversation.remember(undefined);
    setExchanges([]);
    setChosen(new Map());
    setEditing(undefined);
    setSwitched(reason);
  };

  // Another version (chosen here, or by "Try this draft") answers from a fresh conversation: one conversation, one version.
  useEffect(() => {
    if (shownVersion.current === version.current) return;
    shownVersion.current = version.current;
    startOver(`Now chatting with ${version.choices.find((choice) => choice.value === version.current)?.label ?? 'another version'}: a new conversation started.`);
  });

  return (
    <section id="playground" tabIndex={-1} className="card playground" aria-label="Playground">
      <PlaygroundHeader version={version} busy={busy} switched={switched} canStartOver={exchanges.length > 0} onStartOver={() => startOver()} />
      <PlaygroundTranscript
        exchanges={exchanges}
        path={path}
        loading={conversation.loading}
        withVersions={version.choices.length > 0}
        editing={editing}
        busy={busy}
        onChoose={(parent, target) => setChosen((current) => new Map(current).set(parent, target))}
        onEdit={setEditing}
        onRun={(parent, message) => void run(parent, message)}
      />
      <Composer busy={busy} onSend={send} />
    </section>
  );
}
