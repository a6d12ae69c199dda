import type { EditorOptions } from '@contract/agent-editor.ts';
import { useState } from 'react';
import Markdown from 'react-markdown';
import { Button } from '../../components/ui/button.tsx';
import { SelectField, TextField } from '../../components/ui/field.tsx';
import { MultiSelect } from '../../components/ui/multi-select.tsx';

const EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;

type ErrorFor = (field: string) => string | undefined;
type FieldsProps = { initial: Record<string, unknown>; options: EditorOptions; errorFor: ErrorFor };

/** A list field of the agent file as names (tools may be saved as `{ name, ... }`). */
const listOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.map((entry) => (typeof entry === 'object' && entry !== null ? String((entry as { name?: unknown }).name) : String(entry))) : [];

/** The instructions as Markdown source, or drawn as they will read: one button turns between the two. */
export function InstructionsField({ value, onChange, error }: { value: string; onChange(value: string): void; error: string | undefined }) {
  const [preview, setPreview] = useState(false);
  return (
    <div className="field">
      <div className="section-header">
        <label htmlFor="agent-instructions">Instructions</label>
        <Button onClick={() => setPreview((current) => !current)} aria-pressed={preview}>
          {preview ? 'Edit' : 'Preview'}
        </Button>
      </div>
      {preview ? (
        <article className="markdown-preview" aria-label="Instructions preview">
          <Markdown>{value}</Markdown>
        </article>
      ) : (
        <textarea id="agent-instructions" className="code-editor" rows={12} spellCheck value={value} onChange={(event) => onChange(event.target.value)} aria-invalid={error ? true : undefined} />
      )}
      {error && <p className="field-error">{error}</p>}
    </div>
  );
}

/** How the agent runs: temperature, reasoning effort and the most steps a run may take. */
export function RunSettings({ initial, errorFor }: { initial: Record<string, unknown>; errorFor: ErrorFor }) {
  const reasoning = (initial['reasoning'] as { effort?: string } | undefined)?.effort ?? '';
  return (
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
  );
}

/** The model the agent calls (its saved one kept even when no longer offered) and the models tried after it. */
export function ModelFields({ initial, options, errorFor }: FieldsProps) {
  return (
    <>
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
    </>
  );
}

/** What the agent can reach: the server's tools and the account's knowledge collections. */
export function ToolsAndKnowledge({ initial, options, errorFor }: FieldsProps) {
  return (
    <>
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
    </>
  );
}
