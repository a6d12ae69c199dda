import { Link, Outlet, useNavigate } from '@tanstack/react-router';
import { useEffect } from 'react';
import { ApiError } from '../api/client.ts';
import { useMe, useSignOut, useSwitchAccount } from '../api/queries.ts';
import { returnHere } from '../api/sign-in-return.ts';
import { Button } from './ui/button.tsx';
import { ThemeToggle } from './theme-toggle.tsx';
import { ErrorNote, Loading } from './ui/states.tsx';

const NAVIGATION = [
  { to: '/', label: 'Overview' },
  { to: '/keys', label: 'Keys' },
  { to: '/usage', label: 'Usage' },
  { to: '/credits', label: 'Credits' },
  { to: '/models', label: 'Models' },
  { to: '/agents', label: 'Agents' },
  { to: '/runs', label: 'Runs' },
  { to: '/knowledge', label: 'Knowledge' },
  { to: '/datasets', label: 'Datasets' },
  { to: '/settings', label: 'Settings' },
] as const;

/** The signed-in frame: navigation, the account switcher and sign-out around the current page. */
export function AppLayout() {
  const me = useMe();
  const navigate = useNavigate();
  const switchAccount = useSwitchAccount();
  const signOut = useSignOut();
  const signedOut = me.data?.signed_in === false || (me.error instanceof ApiError && me.error.status === 401);

  useEffect(() => {
    if (signedOut) void navigate({ to: '/sign-in', search: returnHere() });
  }, [signedOut, navigate]);

  if (me.error && !signedOut) return <ErrorNote error={me.error} />;
  if (!me.data?.signed_in) return <Loading what="your session" />;
  const session = me.data;
  const current = session.accounts.find((account) => account.account_id === session.current_account_id);

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Junction</span>
        <nav aria-label="Main" className="nav">
          {NAVIGATION.map((item) => (
            <Link key={item.to} to={item.to} className="nav-link" activeProps={{ className: 'nav-link active', 'aria-current': 'page' }} activeOptions={{ exact: item.to === '/' }}>
              {item.label}
            </Link>
          ))}
        </nav>
        <div className="topbar-end">
          <label className="account-switcher">
            <span className="visually-hidden">Account</span>
            <select value={session.current_account_id} onChange={(event) => switchAccount.mutate(event.target.value)}>
              {session.accounts.map((account) => (
                <option key={account.account_id} value={account.account_id}>
                  {account.account_name} ({account.role})
                </option>
              ))}
            </select>
          </label>
          <ThemeToggle />
          <span className="muted user-email">{session.user.email}</span>
          <Button onClick={() => signOut.mutate(undefined, { onSettled: () => void navigate({ to: '/sign-in', search: {} }) })}>Sign out</Button>
        </div>
      </header>
      <main id="main" tabIndex={-1} className="page" data-account={current?.account_name}>
        <Outlet />
      </main>
    </div>
  );
}
