import type { EditorOptions } from '@contract/agent-editor.ts';
import { useBlocker } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { Button } from '../../components/ui/button.tsx';
import { TextField } from '../../components/ui/field.tsx';
import { InstructionsField, ModelFields, RunSettings, ToolsAndKnowledge } from './agent-editor-fields.tsx';

type Definition = Record<string, unknown>;
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
  const [issues, setIssues] = useState<Array<{ path: string; message: string }>>([]);
  const [busy, setBusy] = useState(false);
  // Edited and not saved: leaving the page asks first instead of dropping the edits.
  const [dirty, setDirty] = useState(false);
  useBlocker({ shouldBlockFn: () => dirty && !window.confirm('Leave this page? Your changes to this agent are not saved.'), enableBeforeUnload: () => dirty });

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
      <ModelFields initial={initial} options={options} errorFor={errorFor} />
      <InstructionsField value={instructions} onChange={setInstructions} error={errorFor('instructions')} />
      <ToolsAndKnowledge initial={initial} options={options} errorFor={errorFor} />
      <RunSettings initial={initial} errorFor={errorFor} />
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
