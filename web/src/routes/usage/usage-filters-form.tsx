import type { FormEvent } from 'react';
import { useAgents, useKeys } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { SelectField, TextField } from '../../components/ui/field.tsx';
import { Loading } from '../../components/ui/states.tsx';
import type { UsageSearch } from './usage-search.ts';

/** What people call an outcome (the server maps each to its stored statuses). */
export const STATUS_CHOICES = [
  ['success', 'Success'],
  ['error', 'Error'],
  ['refused', 'Refused'],
] as const;

export const GROUP_CHOICES = [
  ['key', 'Key'],
  ['model', 'Model'],
  ['agent', 'Agent'],
  ['day', 'Day'],
] as const;

/** The filters, read from and written to the URL: `search` fills the fields, Apply navigates. */
export function UsageFiltersForm({ search, range, onApply }: { search: UsageSearch; range: { from: string; to: string }; onApply(next: UsageSearch): void }) {
  const modelKeys = useKeys('model');
  const agentKeys = useKeys('agent');
  const agents = useAgents();

  // Options must exist before the fields are drawn, or a select cannot show the value the URL names.
  if (modelKeys.isPending || agentKeys.isPending || agents.isPending) return <Loading what="the filters" />;

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next: UsageSearch = {};
    for (const name of ['key', 'model', 'endpoint', 'status', 'agent', 'from', 'to', 'group'] as const) {
      const value = String(form.get(name) ?? '').trim();
      if (value !== '') next[name] = value;
    }
    onApply(next);
  };

  return (
    <form className="card filters" onSubmit={apply} aria-label="Usage filters">
      <SelectField label="Key" name="key" defaultValue={search.key ?? ''}>
        <option value="">All keys</option>
        <optgroup label="Model keys">
          {modelKeys.data?.data.map((key) => (
            <option key={key.id} value={key.id}>
              {key.name}
            </option>
          ))}
        </optgroup>
        <optgroup label="Agent keys">
          {agentKeys.data?.data.map((key) => (
            <option key={key.id} value={key.id}>
              {key.name}
            </option>
          ))}
        </optgroup>
      </SelectField>
      <TextField label="Model" name="model" defaultValue={search.model ?? ''} placeholder="any part, e.g. mini" />
      <TextField label="Endpoint" name="endpoint" defaultValue={search.endpoint ?? ''} placeholder="chat.completions" />
      <SelectField label="Status" name="status" defaultValue={search.status ?? ''}>
        <option value="">Any status</option>
        {STATUS_CHOICES.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </SelectField>
      <SelectField label="Agent" name="agent" defaultValue={search.agent ?? ''}>
        <option value="">All agents</option>
        {agents.data?.data.map((agent) => (
          <option key={agent.id} value={agent.id}>
            {agent.name}
          </option>
        ))}
      </SelectField>
      <TextField label="From" name="from" type="date" defaultValue={range.from} required />
      <TextField label="To" name="to" type="date" defaultValue={range.to} required />
      <SelectField label="Group by" name="group" defaultValue={search.group ?? ''}>
        <option value="">No grouping</option>
        {GROUP_CHOICES.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </SelectField>
      <Button type="submit" variant="primary">
        Apply filters
      </Button>
    </form>
  );
}
