import { USAGE_STATUSES, type UsageEntry, type UsageQuery } from '@contract/usage.ts';
import { type FormEvent, useState } from 'react';
import { dateTime, usd } from '../../api/client.ts';
import { useKeys, useUsage } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { SelectField, TextField } from '../../components/ui/field.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { NO_KEY_CALLER } from '../../api/caller-names.ts';

const PAGE_SIZE = 50;

function UsageDetail({ entry, onClose }: { entry: UsageEntry | undefined; onClose(): void }) {
  const rows: Array<[string, string]> = entry
    ? [
        ['Id', entry.id],
        ['Time', dateTime(entry.created_at)],
        ['Key', entry.key_name ?? NO_KEY_CALLER],
        ['Endpoint', entry.endpoint],
        ['Requested model', entry.requested_model ?? '—'],
        ['Model', entry.model ?? '—'],
        ['Provider', entry.provider ?? '—'],
        ['Status', `${entry.status}${entry.http_status ? ` (${entry.http_status})` : ''}${entry.error_code ? ` ${entry.error_code}` : ''}`],
        ['Input tokens', String(entry.input_tokens)],
        ['Output tokens', String(entry.output_tokens)],
        ['Cached input tokens', String(entry.cached_input_tokens)],
        ['Reasoning tokens', String(entry.reasoning_tokens)],
        ['Cost', usd(entry.cost_usd)],
        ['Latency', entry.latency_ms === null ? '—' : `${entry.latency_ms} ms`],
        ['Attempts', String(entry.attempts)],
        ['Streamed', entry.streamed ? 'yes' : 'no'],
        ['Agent', entry.agent_id ?? '—'],
        ['Run', entry.agent_run_id ?? '—'],
        ['Request id', entry.request_id],
      ]
    : [];
  return (
    <Dialog open={entry !== undefined} onOpenChange={(open) => !open && onClose()} title="Call details">
      <dl className="details">
        {rows.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}

export function UsagePage() {
  const keys = useKeys('model');
  const [filters, setFilters] = useState<UsageQuery>({ limit: PAGE_SIZE });
  // Cursors of the pages before this one, so "Previous" goes back exactly.
  const [cursors, setCursors] = useState<string[]>([]);
  const [detail, setDetail] = useState<UsageEntry>();
  const query = { ...filters, ...(cursors.length > 0 && { cursor: cursors.at(-1) }) };
  const usage = useUsage(query);

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    const date = (name: string, endOfDay: boolean) => {
      const value = text(name);
      return value ? new Date(`${value}T${endOfDay ? '23:59:59.999' : '00:00:00'}Z`).toISOString() : undefined;
    };
    setCursors([]);
    setFilters({
      limit: PAGE_SIZE,
      key_id: text('key_id'),
      model: text('model'),
      endpoint: text('endpoint'),
      status: text('status') as UsageQuery['status'],
      from: date('from', false),
      to: date('to', true),
    });
  };
  const csvParams = new URLSearchParams(Object.entries(filters).flatMap(([name, value]) => (value === undefined || name === 'limit' ? [] : [[name, String(value)]])));

  return (
    <>
      <div className="section-header">
        <h1>Usage</h1>
        <div className="section-actions">
          <a className="button button-secondary" href={`/console/api/usage.csv?${csvParams}`} download>
            Export CSV
          </a>
          <a className="button button-secondary" href={`/console/api/usage.jsonl?${csvParams}`} download>
            Export JSON Lines
          </a>
        </div>
      </div>
      <form className="card filters" onSubmit={apply} aria-label="Usage filters">
        <SelectField label="Key" name="key_id" defaultValue="">
          <option value="">All keys</option>
          {keys.data?.data.map((key) => (
            <option key={key.id} value={key.id}>
              {key.name}
            </option>
          ))}
        </SelectField>
        <TextField label="Model" name="model" placeholder="openai/gpt-4o-mini" />
        <TextField label="Endpoint" name="endpoint" placeholder="chat.completions" />
        <SelectField label="Status" name="status" defaultValue="">
          <option value="">Any status</option>
          {USAGE_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </SelectField>
        <TextField label="From" name="from" type="date" />
        <TextField label="To" name="to" type="date" />
        <Button type="submit" variant="primary">
          Apply filters
        </Button>
      </form>
      <section className="card" aria-label="Usage log">
        {usage.isPending ? (
          <Loading what="usage" />
        ) : usage.error ? (
          <ErrorNote error={usage.error} />
        ) : usage.data.data.length === 0 ? (
          <p className="muted">No calls match.</p>
        ) : (
          <DataTable label="Usage log" columns={['Time', 'Key', 'Model', 'Endpoint', 'Status', 'Tokens in / out', 'Cost', 'Latency']} actions="Details">
            {usage.data.data.map((entry) => (
              <tr key={entry.id}>
                <td>{dateTime(entry.created_at)}</td>
                <td>{entry.key_name ?? NO_KEY_CALLER}</td>
                <td>{entry.model ?? entry.requested_model ?? '—'}</td>
                <td>{entry.endpoint}</td>
                <td>{entry.status}</td>
                <td>
                  {entry.input_tokens} / {entry.output_tokens}
                </td>
                <td>{usd(entry.cost_usd)}</td>
                <td>{entry.latency_ms === null ? '—' : `${entry.latency_ms} ms`}</td>
                <td>
                  <Button onClick={() => setDetail(entry)} aria-label={`Details of ${entry.id}`}>
                    Details
                  </Button>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
        <div className="pager">
          <Button disabled={cursors.length === 0} onClick={() => setCursors((current) => current.slice(0, -1))}>
            Previous page
          </Button>
          <Button disabled={!usage.data?.next_cursor} onClick={() => usage.data?.next_cursor && setCursors((current) => [...current, usage.data.next_cursor as string])}>
            Next page
          </Button>
        </div>
      </section>
      <UsageDetail entry={detail} onClose={() => setDetail(undefined)} />
    </>
  );
}
