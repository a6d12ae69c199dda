import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/ui/button.tsx';
import { SelectField, TextAreaField, TextField } from '../../components/ui/field.tsx';
import { ErrorNote } from '../../components/ui/states.tsx';
import { useDatasetChoices, useStartEvaluation, useStartExperiment } from './evaluation-queries.ts';

/** The scorers a person ticks; each reads the case's own expectations (or its reference, for exact). */
const CHECKS = [
  { type: 'contains', label: 'Contains', hint: 'must_contain and must_not_contain' },
  { type: 'regex', label: 'Pattern', hint: 'the case’s regex' },
  { type: 'json_schema', label: 'JSON schema', hint: 'the case’s json_schema' },
  { type: 'tool_calls', label: 'Tool calls', hint: 'the tools the case expects' },
  { type: 'cites', label: 'Citations', hint: 'the documents the case expects' },
  { type: 'exact', label: 'Exact answer', hint: 'equals the reference' },
] as const;

/** The scorers chosen: the ticked checks, and a judge when there is a rubric (on its own model, if one is named). */
function scorersFrom(checks: ReadonlySet<string>, rubric: string, judgeModel: string) {
  return [
    ...CHECKS.filter((check) => checks.has(check.type)).map((check) => ({ type: check.type })),
    ...(rubric.trim() ? [{ type: 'judge', rubric: rubric.trim(), ...(judgeModel.trim() && { model: judgeModel.trim() }) }] : []),
  ];
}

/** The checks to score each case with, ticked on and off. */
function ScorerChecks({ checks, onChange }: { checks: ReadonlySet<string>; onChange(checks: Set<string>): void }) {
  return (
    <fieldset>
      <legend>Scorers</legend>
      {CHECKS.map((check) => (
        <label key={check.type} className="checkbox">
          <input
            type="checkbox"
            checked={checks.has(check.type)}
            onChange={(event) => {
              const next = new Set(checks);
              if (event.target.checked) next.add(check.type);
              else next.delete(check.type);
              onChange(next);
            }}
          />
          <span>
            {check.label} <span className="muted small">{check.hint}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/**
 * Starts an evaluation of one version over a dataset, or, with a baseline, an experiment
 * comparing two versions; the page of what started opens and shows its progress.
 */
export function StartEvaluationForm({ agentId }: { agentId: string }) {
  const datasets = useDatasetChoices();
  const startEvaluation = useStartEvaluation();
  const startExperiment = useStartExperiment();
  const navigate = useNavigate();
  const [version, setVersion] = useState('draft');
  const [baseline, setBaseline] = useState('');
  const [dataset, setDataset] = useState('');
  const [checks, setChecks] = useState<Set<string>>(new Set(['contains', 'tool_calls', 'cites']));
  const [rubric, setRubric] = useState('');
  const [judgeModel, setJudgeModel] = useState('');
  const [maxCost, setMaxCost] = useState('');
  const [problem, setProblem] = useState<string>();
  const pending = startEvaluation.isPending || startExperiment.isPending;
  const error = startEvaluation.error ?? startExperiment.error;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(undefined);
    const chosen = dataset || datasets.data?.data[0]?.name;
    if (!chosen) return setProblem('Create a dataset first (Datasets page).');
    const cost = maxCost.trim() === '' ? undefined : Number(maxCost);
    if (cost !== undefined && !(cost > 0)) return setProblem('The cost ceiling is a USD amount above 0, or empty.');
    const scorers = scorersFrom(checks, rubric, judgeModel);
    if (scorers.length === 0) return setProblem('Choose at least one scorer, or write a rubric for the judge.');
    const common = { agent: agentId, dataset: chosen, scorers, ...(cost !== undefined && { max_cost_usd: cost }) };
    if (baseline) {
      const experiment = await startExperiment.mutateAsync({ ...common, baseline: { version: baseline }, candidate: { version } });
      await navigate({ to: '/agents/$agentId/experiments/$experimentId', params: { agentId, experimentId: experiment.id } });
    } else {
      const evaluation = await startEvaluation.mutateAsync({ ...common, version });
      await navigate({ to: '/agents/$agentId/evaluations/$evaluationId', params: { agentId, evaluationId: evaluation.id } });
    }
  };

  return (
    <form className="card" aria-labelledby="start-evaluation-heading" onSubmit={(event) => void submit(event).catch(() => undefined)}>
      <h2 id="start-evaluation-heading">Start an evaluation</h2>
      <p className="muted">Each case runs as a real, billed run of the agent, logged as evaluation traffic. Four cases run at once.</p>
      <div className="field-row">
        <TextField label="Version" value={version} onChange={(event) => setVersion(event.target.value)} hint="draft (the newest), published, or a number" required />
        <SelectField label="Compare with" value={baseline} onChange={(event) => setBaseline(event.target.value)}>
          <option value="">No comparison</option>
          <option value="published">The published version</option>
          <option value="latest">The newest version</option>
        </SelectField>
        <SelectField label="Dataset" value={dataset} onChange={(event) => setDataset(event.target.value)}>
          {(datasets.data?.data ?? []).map((entry) => (
            <option key={entry.id} value={entry.name}>
              {entry.name} ({entry.case_count} cases)
            </option>
          ))}
        </SelectField>
      </div>
      <ScorerChecks checks={checks} onChange={setChecks} />
      <TextAreaField
        label="Judge rubric"
        rows={3}
        value={rubric}
        onChange={(event) => setRubric(event.target.value)}
        placeholder="What a good run does. A model reads the whole run and scores it from 0 to 1."
      />
      <div className="field-row">
        <TextField label="Judge model" value={judgeModel} onChange={(event) => setJudgeModel(event.target.value)} hint="empty: the agent's own model" />
        <TextField label="Cost ceiling (USD)" inputMode="decimal" value={maxCost} onChange={(event) => setMaxCost(event.target.value)} hint="no new case starts once it could be passed" />
      </div>
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
      {error && <ErrorNote error={error} />}
      <Button type="submit" variant="primary" disabled={pending}>
        {baseline ? 'Start experiment' : 'Start evaluation'}
      </Button>
    </form>
  );
}
