import type { EditorOptions } from '@contract/agent-editor.ts';
import { useBlocker } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import Markdown from 'react-markdown';
import { ApiError } from '../../api/client.ts';
import { Button } from '../../components/ui/button.tsx';
import { SelectField, TextField } from '../../components/ui/field.tsx';
import { MultiSelect } from '../../components/ui/multi-select.tsx';

const EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;

type Definition = Record<string, unknown>;
const listOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.map((entry) => (typeof entry === 'object' && entry !== null ? String((entry as { name?: unknown }).name) : String(entry))) : [];
/** Tools saved as `{ name, require_approval: true }` keep that when the form saves them again. */
const approvalTools = (value: unknown): Set<string> =>
  new Set(
    Array.isArray(value)
      ? value.flatMap((entry) =>
          typeof entry === 'object' && entry !== null && (entry as { require_approval?: unknown }).require_approval === true ? [String((entry as { name?: unknown }).name)] : [],
        )
      : [],
  );
/** Fields of the agent file this form does not edit: kept as they are. */
const KEPT_FIELDS = ['max_output_tokens', 'agents', 'handoffs', 'max_run_seconds', 'max_run_cost_usd', 'scorers'];

/** The fields the form shows, each with its own error line; the other issues are listed together. */
const FORM_FIELDS = ['name', 'description', 'model', 'fallback_models', 'instructions', 'tools', 'knowledge', 'temperature', 'reasoning', 'max_steps'];

const isIssueOf = (issue: { path: string }, field: string): boolean => issue.path === field || issue.path.startsWith(`${field}.`) || issue.path.startsWith(`${field}[`);

/** The form's fields as an agent definition; fields the form does not show are kept as they were. */
function definitionFromForm(form: FormData, initial: Definition, instructions: string): Definition {
  const text = (name: string) => String(form.get(name) ?? '').trim();
  const number = (name: string) => (text(name) === '' ? undefined : Number(text(name)));
  const approvals = approvalTools(initial['tools']);
  return {
    ...Object.fromEntries(KEPT_FIELDS.flatMap((field) => (initial[field] === undefined ? [] : [[field, initial[field]]]))),
    name: text('name'),
    ...(text('description') && { description: text('description') }),
    model: text('model'),
    fallback_models: form.getAll('fallback_models').map(String),
    instructions,
    tools: form
      .getAll('tools')
      .map(String)
      .map((name) => (approvals.has(name) ? { name, require_approval: true } : name)),
    knowledge: form.getAll('knowledge').map(String),
    ...(number('temperature') !== undefined && { temperature: number('temperature') }),
    ...(text('reasoning_effort') && { reasoning: { effort: text('reasoning_effort') } }),
    ...(number('max_steps') !== undefined && { max_steps: number('max_steps') }),
  };
}

/**
 * The agent editor: the agent file's fields as a form. The server validates with the
 * same schema as agent files and answers every problem by field path; each is shown
 * beside its field.
 */
export function AgentEditor({
  initial,
  options,
  onSave,
  idField,
  onNameChange,
  saveLabel = 'Save',
}: {
  initial: Definition;
  options: EditorOptions;
  onSave(definition: Definition, changeNote: string | null): Promise<unknown>;
  idField?: React.ReactNode;
  onNameChange?(name: string): void;
  /** The agent page saves drafts; the new-agent form creates the first, published version. */
  saveLabel?: string;
}) {
  const [instructions, setInstructions] = useState(String(initial['instructions'] ?? ''));
  const [preview, setPreview] = useState(false);
  const [issues, setIssues] = useState<Array<{ path: string; message: string }>>([]);
  const [busy, setBusy] = useState(false);
  // Edited and not saved: leaving the page asks first instead of dropping the edits.
  const [dirty, setDirty] = useState(false);
  useBlocker({ shouldBlockFn: () => dirty && !window.confirm('Leave this page? Your changes to this agent are not saved.'), enableBeforeUnload: () => dirty });
  const reasoning = (initial['reasoning'] as { effort?: string } | undefined)?.effort ?? '';

  const errorFor = (field: string) =>
    issues
      .filter((issue) => isIssueOf(issue, field))
      .map((issue) => issue.message)
      .join('; ') || undefined;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const definition = definitionFromForm(form, initial, instructions);
    const changeNote = String(form.get('change_note') ?? '').trim();
    setBusy(true);
    setIssues([]);
    try {
      setDirty(false);
      await onSave(definition, changeNote || null);
    } catch (caught) {
      setDirty(true);
      setIssues(caught instanceof ApiError && caught.issues.length > 0 ? caught.issues : [{ path: '', message: (caught as Error).message }]);
    } finally {
      setBusy(false);
    }
  };

  const general = issues.filter((issue) => !FORM_FIELDS.some((field) => isIssueOf(issue, field)));

  return (
    <form className="form-grid" onSubmit={submit} onChange={() => setDirty(true)} aria-label="Agent editor">
      {idField}
      <TextField label="Name" name="name" required defaultValue={String(initial['name'] ?? '')} error={errorFor('name')} onChange={(event) => onNameChange?.(event.target.value)} />
      <TextField label="Description" name="description" defaultValue={String(initial['description'] ?? '')} error={errorFor('description')} />
      <SelectField label="Model" name="model" defaultValue={String(initial['model'] ?? options.models[0] ?? '')} error={errorFor('model')}>
        {[...new Set([...(initial['model'] ? [String(initial['model'])] : []), ...options.models])].map((model) => (
          <option key={model} value={model}>
            {model}
          </option>
        ))}
      </SelectField>
      <MultiSelect
        label="Fallback models"
        name="fallback_models"
        options={options.models.map((model) => ({ value: model }))}
        defaultSelected={listOf(initial['fallback_models'])}
        error={errorFor('fallback_models')}
      />
      <div className="field">
        <div className="section-header">
          <label htmlFor="agent-instructions">Instructions</label>
          <Button onClick={() => setPreview((current) => !current)} aria-pressed={preview}>
            {preview ? 'Edit' : 'Preview'}
          </Button>
        </div>
        {preview ? (
          <div className="markdown-preview" aria-label="Instructions preview">
            <Markdown>{instructions}</Markdown>
          </div>
        ) : (
          <textarea
            id="agent-instructions"
            className="code-editor"
            rows={12}
            spellCheck
            value={instructions}
            onChange={(event) => setInstructions(event.target.value)}
            aria-invalid={errorFor('instructions') ? true : undefined}
          />
        )}
        {errorFor('instructions') && <p className="field-error">{errorFor('instructions')}</p>}
      </div>
      <MultiSelect
        label="Tools"
        name="tools"
        options={options.tools.map((tool) => ({ value: tool.name, description: tool.description }))}
        defaultSelected={listOf(initial['tools'])}
        error={errorFor('tools')}
        empty={<p className="muted small">No tools are installed on this server.</p>}
      />
      <MultiSelect
        label="Knowledge"
        name="knowledge"
        options={options.knowledge.map((collection) => ({ value: collection }))}
        defaultSelected={listOf(initial['knowledge'])}
        error={errorFor('knowledge')}
        empty={<p className="muted small">No collections yet: upload documents on the Knowledge page.</p>}
      />
      <div className="field-row">
        <TextField
          label="Temperature"
          name="temperature"
          type="number"
          step="0.1"
          min={0}
          max={2}
          defaultValue={initial['temperature'] === undefined ? '' : String(initial['temperature'])}
          error={errorFor('temperature')}
        />
        <SelectField label="Reasoning effort" name="reasoning_effort" defaultValue={reasoning} error={errorFor('reasoning')}>
          <option value="">model default</option>
          {EFFORTS.map((effort) => (
            <option key={effort} value={effort}>
              {effort}
            </option>
          ))}
        </SelectField>
        <TextField label="Max steps" name="max_steps" type="number" min={1} max={100} defaultValue={String(initial['max_steps'] ?? 10)} error={errorFor('max_steps')} />
      </div>
      <TextField label="Change note" name="change_note" placeholder="What changed, for the version history" />
      {general.map((issue) => (
        <p key={`${issue.path}-${issue.message}`} className="field-error" role="alert">
          {issue.path ? `${issue.path}: ` : ''}
          {issue.message}
        </p>
      ))}
      <div className="dialog-actions">
        <Button type="submit" variant="primary" disabled={busy}>
          {saveLabel}
        </Button>
      </div>
    </form>
  );
}
