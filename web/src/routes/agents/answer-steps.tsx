import type { RunStepView } from '@contract/runs.ts';
import { usd } from '../../api/client.ts';
import { withContentKeys } from '../../components/content-keys.ts';
import { milliseconds } from '../runs/run-format.ts';
import { type AnswerRun, matchInWords } from './answer-run.ts';
import type { DrawnStep } from './response-stream.ts';

/** Arguments as the model wrote them, indented when they are JSON. */
function readable(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The passages the agent's knowledge search found before the model answered: each document, its text, and how closely it matched. */
function Retrieval({ retrieval }: { retrieval: AnswerRun['retrievals'][number] }) {
  const best = retrieval.passages[0]?.score ?? 0;
  return (
    <details className="step retrieval" aria-label="Retrieved passages">
      <summary>
        {retrieval.kept ? (
          <>
            Knowledge: {retrieval.passages.length === 0 ? 'nothing matched' : plural(retrieval.passages.length, 'passage')}
            {retrieval.query && <> for “{retrieval.query}”</>}
          </>
        ) : (
          'Knowledge: searched'
        )}
      </summary>
      {!retrieval.kept && <p className="muted small">This account keeps metadata only: the passages are not kept.</p>}
      <ol className="plain passages">
        {withContentKeys(retrieval.passages, (passage) => passage.source).map(({ key, item: passage }, position) => (
          <li key={key} className="passage">
            <p className="passage-source">
              <strong>{passage.title ?? passage.source}</strong> <span className="muted small">{passage.source}</span>
            </p>
            {passage.text !== undefined && <blockquote className="passage-text">{passage.text}</blockquote>}
            <p className="muted small">
              How closely it matched: {matchInWords(passage, best, position)} (score {passage.score.toFixed(4)}; a higher score is a closer match, compared only within this search).
            </p>
          </li>
        ))}
      </ol>
      {/* A run recorded before passages were kept one by one still has the text the model was given. */}
      {retrieval.passages.every((passage) => passage.text === undefined) && retrieval.context && <pre className="passage-text">{retrieval.context}</pre>}
    </details>
  );
}

/** What a tool step is doing, in words: waiting for the caller's code, running, failed or done. */
function toolState(step: Extract<DrawnStep, { kind: 'tool' }>, recorded: RunStepView | undefined): string {
  if (!step.server) return 'for your code to run';
  if (step.result === undefined) return 'running…';
  return recorded?.status === 'error' ? 'failed' : 'done';
}

/** One tool step: collapsed to its name, time and cost; open, its arguments and result. A group, not a region: answers repeat it. */
function ToolStep({ step, recorded }: { step: Extract<DrawnStep, { kind: 'tool' }>; recorded: RunStepView | undefined }) {
  return (
    <details className="step tool" aria-label={`Tool call ${step.name}`}>
      <summary>
        Tool <code>{step.name}</code> · {toolState(step, recorded)}
        {recorded && ` · ${milliseconds(recorded.latency_ms)} · ${usd(recorded.cost_usd)}`}
      </summary>
      <figure aria-label="Arguments">
        <figcaption className="muted small">Arguments</figcaption>
        <pre>{readable(step.arguments) || '(none)'}</pre>
      </figure>
      <figure aria-label="Result">
        <figcaption className="muted small">Result</figcaption>
        <pre>{step.result ?? (step.server ? 'running…' : 'not run here: the caller runs this tool')}</pre>
      </figure>
      {recorded && (
        <p className="muted small">
          Took {milliseconds(recorded.latency_ms)}, cost {usd(recorded.cost_usd)}.
        </p>
      )}
    </details>
  );
}

/** One streamed step: reasoning (collapsed), a tool call, or the answer's text. */
function StepView({ step, run }: { step: DrawnStep; run: AnswerRun | undefined }) {
  if (step.kind === 'reasoning') {
    return (
      <details className="step reasoning">
        <summary>Reasoning</summary>
        <p>{step.text}</p>
      </details>
    );
  }
  if (step.kind === 'tool') return <ToolStep step={step} recorded={run?.tools.get(step.id)} />;
  return <p className="step answer">{step.text}</p>;
}

/**
 * An answer as it streamed: reasoning, tool steps and text in order, with the passages the
 * run retrieved first. Tool steps and passages start collapsed; the run the answer came
 * from adds what the stream does not carry (passages, each tool's time and cost).
 */
export function AnswerSteps({ steps, run }: { steps: DrawnStep[]; run: AnswerRun | undefined }) {
  return (
    <>
      {withContentKeys(run?.retrievals ?? [], (retrieval) => retrieval.query).map(({ key, item: retrieval }) => (
        <Retrieval key={key} retrieval={retrieval} />
      ))}
      {steps.map((step) => (
        <StepView key={step.id} step={step} run={run} />
      ))}
    </>
  );
}
