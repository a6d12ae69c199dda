import type { UsageEntry, UsageQuery, UsageSummaryQuery } from '@contract/usage.ts';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { NO_KEY_CALLER } from '../../api/caller-names.ts';
import { usd } from '../../api/client.ts';
import { useKeys, useUsage } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { ListView } from '../../components/ui/query-view.tsx';
import { browserTimeZone, endOfDay, lastThirtyDays, startOfDay, timeWithSeconds } from './local-dates.ts';
import { RunLink } from '../runs/run-link.tsx';
import { UsageDetail } from './usage-detail.tsx';
import { GROUP_CHOICES, UsageFiltersForm } from './usage-filters-form.tsx';
import { UsageGroupsCard } from './usage-groups-card.tsx';
import { queryString, useUsageSummary } from './usage-queries.ts';
import type { UsageSearch } from './usage-search.ts';
import { statusText } from './status-text.ts';
import './usage.css';

const PAGE_SIZE = 50;
const groupOf = (value: string | undefined) => GROUP_CHOICES.find(([choice]) => choice === value)?.[0];

/** The usage explorer: filters in the URL, local days, group-by with totals, the log a page at a time. */
export function UsagePage() {
  const search = useSearch({ from: '/app/usage' });
  const navigate = useNavigate();
  const range = { ...lastThirtyDays(new Date()), ...(search.from && { from: search.from }), ...(search.to && { to: search.to }) };
  // The days picked are the browser's local days: each becomes the instants it begins and ends.
  const filters = {
    key_id: search.key,
    model: search.model,
    endpoint: search.endpoint,
    status: search.status as UsageQuery['status'],
    agent_id: search.agent,
    from: startOfDay(range.from),
    to: endOfDay(range.to),
  } satisfies UsageQuery;
  const signature = queryString(filters).toString();
  // Cursors of the pages before this one, for the filters they were taken under.
  const [paging, setPaging] = useState<{ signature: string; cursors: string[] }>({ signature, cursors: [] });
  const cursors = paging.signature === signature ? paging.cursors : [];
  const [detail, setDetail] = useState<UsageEntry>();
  const usage = useUsage({ ...filters, limit: PAGE_SIZE, ...(cursors.length > 0 && { cursor: cursors.at(-1) }) });
  const group = groupOf(search.group);
  const summaryQuery: UsageSummaryQuery | undefined = group ? { ...filters, group_by: group, time_zone: browserTimeZone() } : undefined;
  const summary = useUsageSummary(summaryQuery);
  const modelKeys = useKeys('model');
  const agentKeys = useKeys('agent');
  const apply = (next: UsageSearch) => void navigate({ to: '/usage', search: next });
  const exportQuery = queryString(filters);

  return (
    <>
      <div className="section-header">
        <h1>Usage</h1>
        <div className="section-actions">
          <a className="button button-secondary" href={`/console/api/usage.csv?${exportQuery}`} download>
            Export CSV
          </a>
          <a className="button button-secondary" href={`/console/api/usage.jsonl?${exportQuery}`} download>
            Export JSON Lines
          </a>
        </div>
      </div>
      <UsageFiltersForm key={JSON.stringify(search)} search={search} range={range} onApply={apply} />
      <p className="muted small">
        Days are in your time zone ({browserTimeZone()}). <Button onClick={() => apply({})}>Clear filters</Button>
      </p>
      {summaryQuery && <UsageGroupsCard summary={summary} keys={[...(modelKeys.data?.data ?? []), ...(agentKeys.data?.data ?? [])]} />}
      <section className="card" aria-label="Usage log">
        <ListView query={usage} what="usage" empty="No calls match.">
          {(entries) => <UsageLogTable entries={entries} onDetail={setDetail} />}
        </ListView>
        <div className="pager">
          <Button disabled={cursors.length === 0} onClick={() => setPaging({ signature, cursors: cursors.slice(0, -1) })}>
            Previous page
          </Button>
          <Button disabled={!usage.data?.next_cursor} onClick={() => usage.data?.next_cursor && setPaging({ signature, cursors: [...cursors, usage.data.next_cursor] })}>
            Next page
          </Button>
        </div>
      </section>
      <UsageDetail entry={detail} onClose={() => setDetail(undefined)} />
    </>
  );
}

/** The log's page: one row per call, each with its details and, for an agent's call, its run. */
function UsageLogTable({ entries, onDetail }: { entries: UsageEntry[]; onDetail(entry: UsageEntry): void }) {
  return (
    <DataTable label="Usage log" columns={['Time', 'Key', 'Model', 'Endpoint', 'Status', 'Tokens in / out', 'Cost', 'Latency']} actions="Details">
      {entries.map((entry) => (
        <tr key={entry.id}>
          <td>{timeWithSeconds(entry.created_at)}</td>
          <td>{entry.key_name ?? NO_KEY_CALLER}</td>
          <td>{entry.model ?? entry.requested_model ?? '—'}</td>
          <td>{entry.endpoint}</td>
          <td>{statusText(entry)}</td>
          <td>
            {entry.input_tokens} / {entry.output_tokens}
          </td>
          <td>{usd(entry.cost_usd)}</td>
          <td>{entry.latency_ms === null ? '—' : `${entry.latency_ms} ms`}</td>
          <td>
            <Button onClick={() => onDetail(entry)} aria-label={`Details of ${entry.id}`}>
              Details
            </Button>{' '}
            <RunLink usageId={entry.id} runId={entry.agent_run_id} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
