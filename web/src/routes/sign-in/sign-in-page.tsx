import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { SignInResultSchema } from '@contract/session.ts';
import { api } from '../../api/client.ts';
import { Button } from '../../components/ui/button.tsx';
import { TextField } from '../../components/ui/field.tsx';

export function SignInPage() {
  const navigate = useNavigate();
  // Set when a session ended on another page: back there once signed in.
  const { next } = useSearch({ from: '/sign-in' });
  const queryClient = useQueryClient();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      const result = await api(SignInResultSchema, '/session', { method: 'POST', body: { email: String(form.get('email')), password: String(form.get('password')) } });
      if (!result.ok) {
        setError(result.message);
        return;
      }
      await queryClient.resetQueries();
      await navigate({ to: next ?? '/' });
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="auth-page">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Junction</h1>
        <TextField label="Email" name="email" type="email" autoComplete="username" required />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" required />
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <Button type="submit" variant="primary" disabled={busy}>
          Sign in
        </Button>
      </form>
    </main>
  );
}
