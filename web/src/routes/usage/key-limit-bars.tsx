import type { ConsoleKey } from '@contract/keys.ts';
import { usd } from '../../api/client.ts';

const WINDOWS = [
  ['Daily', 'daily_limit_usd', 'day_usd', 'today'],
  ['Monthly', 'monthly_limit_usd', 'month_usd', 'this month'],
  ['Total', 'total_limit_usd', 'lifetime_usd', 'in all'],
] as const;

/** A key's spend against each limit it has (the server's current windows, whatever the page's filters). */
export function KeyLimitBars({ apiKey }: { apiKey: ConsoleKey | undefined }) {
  const limits = apiKey ? WINDOWS.filter(([, limit]) => apiKey[limit] !== null) : [];
  if (!apiKey || limits.length === 0) return <span className="muted">No limit</span>;
  return (
    <ul className="plain limit-bars">
      {limits.map(([title, limit, spend, when]) => {
        const max = apiKey[limit] ?? 0;
        const used = apiKey.spend[spend];
        return (
          <li key={limit}>
            <meter aria-label={`${apiKey.name}: ${title.toLowerCase()} limit used`} min={0} max={max} low={max * 0.8} high={max * 0.95} optimum={0} value={Math.min(used, max)} />
            <span className="small">
              {title}: {usd(used)} of {usd(max)} {when}
            </span>
          </li>
        );
      })}
    </ul>
  );
}
