import { type KeyboardEvent, useId, useRef, useState } from 'react';
import { useModels, useSignedIn } from '../../api/queries.ts';
import { CopyButton } from '../../components/ui/copy-button.tsx';
import { markSnippetCopied } from './checklist-storage.ts';
import { KEY_PLACEHOLDER, type SnippetLanguage, snippetsFor } from './snippets.ts';

const FALLBACK_MODEL = 'openai/gpt-4o-mini';

/**
 * A first call in each client people use, ready to copy: this server's address, the key
 * (when it is known, right after it was made; a placeholder otherwise) and a chat model
 * of the catalog filled in. Tabs follow the ARIA pattern: arrows move between them.
 */
export function SnippetTabs({ apiKey, onCopied }: { apiKey?: string | undefined; onCopied?: () => void }) {
  const accountId = useSignedIn()?.current_account_id;
  const models = useModels();
  const chatModels = (models.data?.data ?? []).filter((model) => model.capabilities?.includes('chat') ?? true).map((model) => model.id);
  const [picked, setPicked] = useState<string>();
  const model = picked ?? chatModels[0] ?? FALLBACK_MODEL;
  const snippets = snippetsFor({ baseUrl: window.location.origin, apiKey: apiKey ?? KEY_PLACEHOLDER, model });
  const [active, setActive] = useState<SnippetLanguage>('curl');
  const tabs = useRef(new Map<SnippetLanguage, HTMLButtonElement>());
  const id = useId();
  const current = snippets.find((snippet) => snippet.id === active) ?? snippets[0];

  const move = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const last = snippets.length - 1;
    const next = { ArrowRight: index === last ? 0 : index + 1, ArrowLeft: index === 0 ? last : index - 1, Home: 0, End: last }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = snippets[next];
    if (!target) return;
    setActive(target.id);
    tabs.current.get(target.id)?.focus();
  };

  return (
    <div className="snippets">
      <div className="snippet-bar">
        <div role="tablist" aria-label="Client" className="tabs">
          {snippets.map((snippet, index) => (
            <button
              key={snippet.id}
              ref={(element) => {
                if (element) tabs.current.set(snippet.id, element);
              }}
              type="button"
              role="tab"
              id={`${id}-${snippet.id}-tab`}
              aria-selected={snippet.id === active}
              aria-controls={`${id}-panel`}
              tabIndex={snippet.id === active ? 0 : -1}
              className="tab"
              onClick={() => setActive(snippet.id)}
              onKeyDown={(event) => move(event, index)}
            >
              {snippet.label}
            </button>
          ))}
        </div>
        {chatModels.length > 0 && (
          <label className="snippet-model">
            <span>Model</span>
            <select value={model} onChange={(event) => setPicked(event.target.value)}>
              {chatModels.map((option) => (
                <option key={option} value={option}>
                  {option}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {current && (
        <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-${current.id}-tab`} className="snippet-panel">
          <pre className="snippet-code">
            <code>{current.code}</code>
          </pre>
          <div>
            <CopyButton
              value={current.code}
              label={`Copy ${current.label} snippet`}
              onCopied={() => {
                if (accountId) markSnippetCopied(accountId);
                onCopied?.();
              }}
            />
          </div>
          {!apiKey && <p className="muted small">Put your key where the snippet says {KEY_PLACEHOLDER}: a key is shown only once, when it is created.</p>}
        </div>
      )}
    </div>
  );
}
