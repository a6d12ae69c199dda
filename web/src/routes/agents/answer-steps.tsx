import type { RunStepView } from '@contract/runs.ts';
import { usd } from '../../api/client.ts';
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
    <div role="group" className="step retrieval" aria-label="Retrieved passages">
      <details>
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
          {retrieval.passages.map((passage, index) => (
            <li key={`${passage.source}-${index}`} className="passage">
              <p className="passage-source">
                <strong>{passage.title ?? passage.source}</strong> <span className="muted small">{passage.source}</span>
              </p>
              {passage.text !== undefined && <blockquote className="passage-text">{passage.text}</blockquote>}
              <p className="muted small">
                How closely it matched: {matchInWords(passage, best, index)} (score {passage.score.toFixed(4)}; a higher score is a closer match, compared only within this search).
              </p>
            </li>
          ))}
        </ol>
        {/* A run recorded before passages were kept one by one still has the text the model was given. */}
        {retrieval.passages.every((passage) => passage.text === undefined) && retrieval.context && <pre className="passage-text">{retrieval.context}</pre>}
      </details>
    </div>
  );
}

/** One tool step: collapsed to its name, time and cost; open, its arguments and result. A group, not a region: answers repeat it. */
function ToolStep({ step, recorded }: { step: Extract<DrawnStep, { kind: 'tool' }>; recorded: RunStepView | undefined }) {
  const state = !step.server ? 'for your code to run' : step.result === undefined ? 'running…' : recorded?.status === 'error' ? 'failed' : 'done';
  return (
    <div role="group" className="step tool" aria-label={`Tool call ${step.name}`}>
      <details>
        <summary>
          Tool <code>{step.name}</code> · {state}
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
    </div>
  );
}

/**
 * An answer as it streamed: reasoning, tool steps and text in order, with the passages the
 * run retrieved first. Tool steps and passages start collapsed; the run the answer came
 * from adds what the stream does not carry (passages, each tool's time and cost).
 */
export function AnswerSteps({ steps, run }: { steps: DrawnStep[]; run: AnswerRun | undefined }) {
  return (
    <>
      {run?.retrievals.map((retrieval, index) => (
        <Retrieval key={index} retrieval={retrieval} />
      ))}
      {steps.map((step) =>
        step.kind === 'reasoning' ? (
          <details key={step.id} className="step reasoning">
            <summary>Reasoning</summary>
            <p>{step.text}</p>
          </details>
        ) : step.kind === 'tool' ? (
          <ToolStep key={step.id} step={step} recorded={run?.tools.get(step.id)} />
        ) : (
          <p key={step.id} className="step answer">
            {step.text}
          </p>
        ),
      )}
    </>
  );
}
