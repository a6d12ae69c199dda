import type { Overview } from '@contract/overview.ts';
import { Link } from '@tanstack/react-router';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { usd } from '../../api/client.ts';
import { useSignedIn } from '../../api/queries.ts';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { shortDay } from '../usage/local-dates.ts';
import { FirstRunChecklist } from './first-run-checklist.tsx';
import { useOverview } from './overview-queries.ts';
import { exactUsd } from '../credits/exact-usd.ts';

/** Chart text in the theme's colours (Recharts sets its own inline). */
const TOOLTIP_STYLE = { background: 'var(--card)', borderColor: 'var(--border)', color: 'var(--text)' };
const legendText = (value: string) => <span className="chart-legend-text">{value}</span>;

const COLORS = ['#2563eb', '#16a34a', '#d97706', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626'];

/** Points `{day, name, spend}` → one row per day with a column per name (what a stacked bar chart draws). */
function pivot(days: string[], points: Overview['spend_by_model']): { rows: Array<Record<string, number | string>>; names: string[] } {
  const names = [...new Set(points.map((point) => point.name))];
  const rows = days.map((day) => ({ day: shortDay(day), ...Object.fromEntries(names.map((name) => [name, 0])) }) as Record<string, number | string>);
  for (const point of points) {
    const row = rows[days.indexOf(point.day)];
    if (row) row[point.name] = Number(row[point.name] ?? 0) + point.spend_usd;
  }
  return { rows, names };
}

function SpendChart({ title, days, points }: { title: string; days: string[]; points: Overview['spend_by_model'] }) {
  const { rows, names } = pivot(days, points);
  return (
    <section className="card chart-card" aria-label={title}>
      <h2>{title}</h2>
      {names.length === 0 ? (
        <p className="muted">No spend in the last 30 days.</p>
      ) : (
        <ResponsiveContainer width="100%" height={240}>
          <BarChart data={rows}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="day" fontSize={12} />
            <YAxis fontSize={12} tickFormatter={(value: number) => `$${value}`} />
            <Tooltip formatter={(value) => usd(Number(value))} contentStyle={TOOLTIP_STYLE} />
            <Legend formatter={legendText} />
            {names.map((name, index) => (
              <Bar key={name} dataKey={name} stackId="spend" fill={COLORS[index % COLORS.length]} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      )}
      <ul className="visually-hidden" aria-label={`${title} data`}>
        {points.map((point) => (
          <li key={`${point.day}-${point.name}`}>{`${shortDay(point.day)} ${point.name} ${usd(point.spend_usd)}`}</li>
        ))}
      </ul>
    </section>
  );
}

/** Credit is granted by the server's operators (a tenant cannot add its own): say so, and how, where the $0.00 shows. */
function NoCreditHint({ accountId }: { accountId: string }) {
  return (
    <p className="warning small" role="note">
      No credit: calls answer 402 until credit is added. The operators of this Junction server add it from the console’s <Link to="/credits">grant page</Link>, or with{' '}
      <code>{`npx junction credits grant --amount 10 --currency USD --account ${accountId}`}</code>
    </p>
  );
}

export function OverviewPage() {
  const accountId = useSignedIn()?.current_account_id ?? '<account id>';
  const overview = useOverview();
  if (overview.isPending) return <Loading what="the overview" />;
  if (overview.error) return <ErrorNote error={overview.error} />;
  const data = overview.data;
  const requests = data.days.map((day) => ({ requests: 0, errors: 0, ...data.requests.find((entry) => entry.day === day), day: shortDay(day) }));
  return (
    <>
      <h1>Overview</h1>
      <FirstRunChecklist accountId={accountId} overview={data} />
      <div className="stats">
        <section className="card stat" aria-label="Balance">
          <h2>Balance</h2>
          <p className="stat-value">{exactUsd(data.balance.usd)}</p>
          {data.balance.usd <= 0 && <NoCreditHint accountId={accountId} />}
          <ul className="plain muted">
            {data.balance.by_currency.map((entry) => (
              <li key={entry.currency}>
                {Number(entry.amount).toLocaleString('en-US')} {entry.currency} granted ({usd(entry.usd)})
              </li>
            ))}
          </ul>
        </section>
        <section className="card stat" aria-label="Spend today">
          <h2>Spend today</h2>
          <p className="stat-value">{usd(data.spend_today_usd)}</p>
        </section>
        <section className="card stat" aria-label="Spend this month">
          <h2>Spend this month</h2>
          <p className="stat-value">{usd(data.spend_month_usd)}</p>
        </section>
      </div>
      <SpendChart title="Spend per day by model" days={data.days} points={data.spend_by_model} />
      <SpendChart title="Spend per day by key" days={data.days} points={data.spend_by_key} />
      {data.spend_by_agent.length > 0 && <SpendChart title="Spend per day by agent" days={data.days} points={data.spend_by_agent} />}
      <section className="card chart-card" aria-label="Requests and errors">
        <h2>Requests and errors</h2>
        <ResponsiveContainer width="100%" height={200}>
          <BarChart data={requests}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="day" fontSize={12} />
            <YAxis fontSize={12} allowDecimals={false} />
            <Tooltip contentStyle={TOOLTIP_STYLE} />
            <Legend formatter={legendText} />
            <Bar dataKey="requests" fill="#2563eb" isAnimationActive={false} />
            <Bar dataKey="errors" fill="#dc2626" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </section>
    </>
  );
}
