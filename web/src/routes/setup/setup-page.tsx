import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { z } from 'zod';
import { api, ApiError } from '../../api/client.ts';
import { Button } from '../../components/ui/button.tsx';
import { TextField } from '../../components/ui/field.tsx';

/** First start: the one-time link the server printed creates the owner of the default account. */
export function SetupPage() {
  const { token } = useSearch({ from: '/setup' });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<{ form?: string; email?: string; password?: string }>({});

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    try {
      await api(z.object({}).loose(), '/setup', { method: 'POST', body: { token, email: String(form.get('email')), password: String(form.get('password')) } });
      await queryClient.resetQueries();
      await navigate({ to: '/' });
    } catch (caught) {
      const param = caught instanceof ApiError ? caught.param : null;
      setErrors(param === 'email' || param === 'password' ? { [param]: (caught as Error).message } : { form: (caught as Error).message });
    }
  };

  return (
    <main className="auth-page">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="setup-title">
        <h1 id="setup-title">Create the owner</h1>
        <p className="muted">This one-time link sets up the console. The owner manages keys, members and agents.</p>
        <TextField label="Email" name="email" type="email" autoComplete="username" required error={errors.email} />
        <TextField label="Password" name="password" type="password" autoComplete="new-password" minLength={10} required error={errors.password} hint="At least 10 characters." />
        {errors.form && (
          <p className="field-error" role="alert">
            {errors.form}
          </p>
        )}
        <Button type="submit" variant="primary">
          Create owner
        </Button>
      </form>
    </main>
  );
}
