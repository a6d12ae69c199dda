import type { RunStepView } from '@contract/runs.ts';
import { withContentKeys } from '../../components/content-keys.ts';

type Message = { role?: string; text?: string; tool_calls?: Array<{ name: string; arguments: unknown }> };
type Hit = { source?: string; title?: string | null; score?: number };

const asRecord = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});
const json = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

function Pre({ label, value }: { label: string; value: unknown }) {
  return (
    <div>
      <p>
        <strong>{label}</strong>
      </p>
      <pre className="step-content">{json(value)}</pre>
    </div>
  );
}

function Messages({ messages }: { messages: Message[] }) {
  return (
    <ol aria-label="Prompt messages">
      {withContentKeys(messages, (message) => `${message.role} ${message.text}`).map(({ key, item: message }) => (
        <li key={key}>
          <strong>{message.role}</strong>: <span style={{ whiteSpace: 'pre-wrap' }}>{message.text}</span>
          {message.tool_calls && message.tool_calls.length > 0 && <pre className="step-content">{json(message.tool_calls)}</pre>}
        </li>
      ))}
    </ol>
  );
}

/** What a step kept: a model call's prompt and answer, a tool call's arguments and result, a search's hits. */
export function StepContentView({ step }: { step: RunStepView }) {
  if (step.content === null) return <p className="muted">This account keeps metadata only: no prompts, answers, arguments or results.</p>;
  const content = asRecord(step.content);
  if (step.kind === 'model') {
    return (
      <>
        <p>
          <strong>Prompt</strong>
        </p>
        <Messages messages={(content['messages'] as Message[] | undefined) ?? []} />
        <Pre label="Answer" value={content['answer'] ?? '—'} />
      </>
    );
  }
  if (step.kind === 'retrieval') {
    const hits = (content['hits'] as Hit[] | undefined) ?? [];
    return (
      <>
        <p>Query: {String(content['query'] ?? '')}</p>
        <ol aria-label="Knowledge hits">
          {withContentKeys(hits, (hit) => `${hit.source} ${hit.score}`).map(({ key, item: hit }) => (
            <li key={key}>
              {hit.title ?? hit.source}{' '}
              <span className="muted">
                ({hit.source}, score {hit.score?.toFixed(3)})
              </span>
            </li>
          ))}
        </ol>
        {content['context'] ? <Pre label="Passages given to the model" value={content['context']} /> : null}
      </>
    );
  }
  if (step.kind === 'approval') {
    const by = asRecord(content['answered_by']);
    return (
      <p>
        Answered by {String(by['key_name'] ?? 'unknown')}
        {content['reason'] ? `: ${String(content['reason'])}` : ''}
      </p>
    );
  }
  return (
    <>
      <Pre label="Arguments" value={content['arguments'] ?? ''} />
      <Pre label="Result" value={content['result'] ?? ''} />
    </>
  );
}
