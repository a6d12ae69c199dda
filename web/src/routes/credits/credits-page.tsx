import type { Credits } from '@contract/credits.ts';
import { dateTime, usd } from '../../api/client.ts';
import { useSignedIn } from '../../api/queries.ts';
import { DataTable } from '../../components/ui/data-table.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { useCreditAccounts, useCredits } from './credit-queries.ts';
import { GrantForm } from './grant-form.tsx';
import { exactUsd } from './exact-usd.ts';

/** `2026-12` → `December 2026` (a UTC month, as the ledger sums it). */
const monthLabel = (month: string): string => new Date(`${month}-01T00:00:00Z`).toLocaleDateString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const amountLabel = (amount: string): string => amount.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');

function BalanceCard({ balance }: { balance: Credits['balance'] }) {
  return (
    <section className="card" aria-labelledby="credit-balance-heading">
      <h2 id="credit-balance-heading">Credit balance</h2>
      <p className="stat-value">{exactUsd(balance.usd)}</p>
      <dl className="details">
        <div>
          <dt>Granted</dt>
          <dd>{usd(balance.granted_usd)}</dd>
        </div>
        <div>
          <dt>Spent</dt>
          <dd>{usd(balance.used_usd)}</dd>
        </div>
        <div>
          <dt>Held by calls in flight</dt>
          <dd>{usd(balance.reserved_usd)}</dd>
        </div>
      </dl>
      {balance.by_currency.length > 0 && (
        <>
          <h3 className="small">Granted per currency</h3>
          <ul className="plain">
            {balance.by_currency.map((entry) => (
              <li key={entry.currency}>
                {Number(entry.amount).toLocaleString('en-US')} {entry.currency} ({usd(entry.usd)})
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function HowToGetMore({ text, accountName, accountId }: { text: string; accountName: string; accountId: string }) {
  return (
    <section className="card" aria-labelledby="more-credit-heading">
      <h2 id="more-credit-heading">Getting more credit</h2>
      <p>{text}</p>
      <p>
        This account: <strong>{accountName}</strong> (<code>{accountId}</code>).
      </p>
    </section>
  );
}

function GrantsTable({ grants, showGrantor }: { grants: Credits['grants']; showGrantor: boolean }) {
  return (
    <section className="card" aria-labelledby="grants-heading">
      <h2 id="grants-heading">Grants</h2>
      {grants.length === 0 ? (
        <p className="muted">No credit granted to this account yet.</p>
      ) : (
        <DataTable label="Credit grants" columns={['Date', 'Amount', 'In USD', 'Note', ...(showGrantor ? ['Granted by'] : [])]}>
          {grants.map((grant) => (
            <tr key={grant.id}>
              <td>{dateTime(grant.created_at)}</td>
              <td>{`${amountLabel(grant.amount)} ${grant.currency}`}</td>
              <td>{usd(grant.usd)}</td>
              <td>{grant.note ?? '—'}</td>
              {showGrantor && <td>{grant.granted_by ?? '—'}</td>}
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

function SpendTable({ months }: { months: Credits['spend_by_month'] }) {
  return (
    <section className="card" aria-labelledby="spend-heading">
      <h2 id="spend-heading">Spend by month</h2>
      {months.length === 0 ? (
        <p className="muted">Nothing spent yet.</p>
      ) : (
        <DataTable label="Spend by month" columns={['Month (UTC)', 'Requests', 'Spend']}>
          {months.map((month) => (
            <tr key={month.month}>
              <td>{monthLabel(month.month)}</td>
              <td>{month.requests.toLocaleString('en-US')}</td>
              <td>{usd(month.spend_usd)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

/** The operator's grant form once the accounts it grants to are known (the list shown even while it is read again). */
function OperatorGrant({ currencies, currentAccountId }: { currencies: string[]; currentAccountId: string | undefined }) {
  const accounts = useCreditAccounts(true);
  if (accounts.data) return <GrantForm accounts={accounts.data.data} currencies={currencies} initialAccountId={currentAccountId ?? accounts.data.data[0]?.id ?? ''} />;
  if (accounts.error) return <ErrorNote error={accounts.error} />;
  return <Loading what="the accounts" />;
}

/** Credit: the balance, the ledger's grants and the spend; operators grant credit to any account here. */
export function CreditsPage() {
  const session = useSignedIn();
  const credits = useCredits();
  if (credits.isPending) return <Loading what="credits" />;
  if (credits.error) return <ErrorNote error={credits.error} />;
  const data = credits.data;
  const current = session?.accounts.find((account) => account.account_id === session.current_account_id);
  return (
    <>
      <h1>Credits</h1>
      <div className="stats">
        <BalanceCard balance={data.balance} />
        {!data.operator && <HowToGetMore text={data.how_to_get_more} accountName={current?.account_name ?? ''} accountId={session?.current_account_id ?? ''} />}
      </div>
      {data.operator && <OperatorGrant currencies={data.currencies} currentAccountId={session?.current_account_id} />}
      <GrantsTable grants={data.grants} showGrantor={data.operator} />
      <SpendTable months={data.spend_by_month} />
    </>
  );
}
