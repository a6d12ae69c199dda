import type { ConsoleKey } from '@contract/keys.ts';
import type { UsageSummary } from '@contract/usage.ts';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { usd } from '../../api/client.ts';
import { DataTable } from '../../components/ui/data-table.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { KeyLimitBars } from './key-limit-bars.tsx';
import { shortDay } from './local-dates.ts';

const TITLES = { key: 'Usage by key', model: 'Usage by model', agent: 'Usage by agent', day: 'Usage by day' } as const;
const count = (value: number): string => value.toLocaleString('en-US');

/** The totals of every row the filters match. */
export function UsageTotals({ totals }: { totals: UsageSummary['totals'] }) {
  return (
    <dl className="details usage-totals" aria-label="Totals">
      <div>
        <dt>Requests</dt>
        <dd>{count(totals.requests)}</dd>
      </div>
      <div>
        <dt>Input tokens</dt>
        <dd>{count(totals.input_tokens)}</dd>
      </div>
      <div>
        <dt>Output tokens</dt>
        <dd>{count(totals.output_tokens)}</dd>
      </div>
      <div>
        <dt>Cost</dt>
        <dd>{usd(totals.cost_usd)}</dd>
      </div>
    </dl>
  );
}

function DayChart({ groups }: { groups: UsageSummary['groups'] }) {
  const rows = groups.map((group) => ({ day: shortDay(group.key ?? group.name), cost: group.cost_usd, requests: group.requests }));
  return (
    <ResponsiveContainer width="100%" height={200}>
      <BarChart data={rows}>
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis dataKey="day" fontSize={12} />
        <YAxis fontSize={12} tickFormatter={(value: number) => `$${value}`} />
        <Tooltip formatter={(value) => usd(Number(value))} />
        <Bar dataKey="cost" name="Cost" fill="#2563eb" isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}

/** The group-by of the page's filters: totals, a row per group (days are local), and each key's limits. */
export function UsageGroupsCard({ summary, keys }: { summary: { data?: UsageSummary | undefined; error: Error | null; isPending: boolean }; keys: ConsoleKey[] }) {
  if (summary.isPending) return <Loading what="the totals" />;
  if (summary.error) return <ErrorNote error={summary.error} />;
  const data = summary.data;
  if (!data) return null;
  const title = TITLES[data.group_by];
  const byId = new Map(keys.map((key) => [key.id, key]));
  const columns = ['Name', 'Requests', 'Tokens in / out', 'Cost', ...(data.group_by === 'key' ? ['Limit used'] : [])];
  return (
    <section className="card" aria-label={title}>
      <h2>{title}</h2>
      <UsageTotals totals={data.totals} />
      {data.group_by === 'day' && <DayChart groups={data.groups} />}
      <DataTable label={title} columns={columns}>
        {data.groups.map((group) => (
          <tr key={group.key ?? '(none)'}>
            <td>{data.group_by === 'day' ? shortDay(group.name) : group.name}</td>
            <td>{count(group.requests)}</td>
            <td>
              {count(group.input_tokens)} / {count(group.output_tokens)}
            </td>
            <td>{usd(group.cost_usd)}</td>
            {data.group_by === 'key' && <td>{group.key ? <KeyLimitBars apiKey={byId.get(group.key)} /> : <span className="muted">No limit</span>}</td>}
          </tr>
        ))}
      </DataTable>
      {data.truncated && <p className="muted small">Only the largest groups are listed; the totals count every call.</p>}
    </section>
  );
}
