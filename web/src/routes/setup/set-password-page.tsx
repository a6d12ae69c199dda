import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { z } from 'zod';
import { api } from '../../api/client.ts';
import { Button } from '../../components/ui/button.tsx';
import { TextField } from '../../components/ui/field.tsx';

/** An invited member's one-time link: choose a password, then you are signed in. */
export function SetPasswordPage() {
  const { token } = useSearch({ from: '/set-password' });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string>();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    try {
      await api(z.object({}).loose(), '/set-password', { method: 'POST', body: { token, password: String(form.get('password')) } });
      await queryClient.resetQueries();
      await navigate({ to: '/' });
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  return (
    <main className="auth-page">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="set-password-title">
        <h1 id="set-password-title">Choose your password</h1>
        <TextField label="Password" name="password" type="password" autoComplete="new-password" minLength={10} required error={error} hint="At least 10 characters." />
        <Button type="submit" variant="primary">
          Set password
        </Button>
      </form>
    </main>
  );
}
