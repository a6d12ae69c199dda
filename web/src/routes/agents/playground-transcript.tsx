import { useEffect, useRef } from 'react';
import { PlaygroundExchange } from './playground-exchange.tsx';
import type { Exchange } from './playground-history.ts';

/**
 * The playground's conversation along the chosen branch (or that it is loading). It scrolls on its own beside the
 * editor and follows a streaming answer unless the reader scrolled up to read an earlier one.
 */
export function PlaygroundTranscript({
  exchanges,
  path,
  loading,
  withVersions,
  editing,
  busy,
  onChoose,
  onEdit,
  onRun,
}: {
  exchanges: readonly Exchange[];
  path: readonly Exchange[];
  loading: boolean;
  withVersions: boolean;
  editing: string | undefined;
  busy: boolean;
  onChoose(parent: string | null, target: string): void;
  onEdit(key: string | undefined): void;
  onRun(parent: string | null, message: string): void;
}) {
  const transcript = useRef<HTMLElement>(null);
  const following = useRef(true);
  useEffect(() => {
    const box = transcript.current;
    if (box && following.current && exchanges.length > 0) box.scrollTop = box.scrollHeight;
  }, [exchanges]);

  return (
    <>
      {loading && (
        <p className="muted" role="status">
          Loading the conversation…
        </p>
      )}
      {/* Once it has turns: a named region, and focusable so the keyboard can scroll it too. */}
      <section
        ref={transcript}
        onScroll={(event) => {
          const box = event.currentTarget;
          following.current = box.scrollHeight - box.scrollTop - box.clientHeight < 48;
        }}
        className="playground-transcript"
        tabIndex={path.length > 0 ? 0 : undefined}
        aria-label={path.length > 0 ? 'Conversation' : undefined}
      >
        {path.length === 0 && !loading && <p className="muted">Send a message to try the agent{withVersions ? ' with the version chosen above' : ''}.</p>}
        <ol className="plain exchanges">
          {path.map((exchange) => (
            <PlaygroundExchange
              key={exchange.key}
              exchange={exchange}
              siblings={exchanges.filter((sibling) => sibling.parent === exchange.parent)}
              onChoose={(target) => onChoose(exchange.parent, target)}
              editing={editing === exchange.key}
              onEdit={(on) => onEdit(on ? exchange.key : undefined)}
              busy={busy}
              onRun={onRun}
            />
          ))}
        </ol>
      </section>
    </>
  );
}
