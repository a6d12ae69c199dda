import { Link } from '@tanstack/react-router';
import { useEffect } from 'react';

/** An unknown console path: said plainly, with a way back. */
export function NotFoundPage() {
  useEffect(() => {
    document.title = 'Page not found · Junction';
  }, []);
  return (
    <main className="auth-page">
      <section className="card auth-card">
        <h1>Page not found</h1>
        <p>There is no console page at this address. It may have moved, or the link was mistyped.</p>
        <p>
          <Link to="/">Go to the Overview</Link>
        </p>
      </section>
    </main>
  );
}
