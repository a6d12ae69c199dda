import { AcceptedInvitationSchema, type InvitationPreview, InvitationPreviewSchema } from '@contract/invitations.ts';
import { type MeSchema, SignInResultSchema } from '@contract/session.ts';
import { type UseQueryResult, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { z } from 'zod';
import { api, setCsrfToken } from '../../api/client.ts';
import { useMe } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { TextField } from '../../components/ui/field.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';

/**
 * An invite link: a new person chooses a password and joins; someone who already has a
 * Junction sign-in signs in as the invited email and accepts. The server decides which
 * (`new_person`); the page only offers the matching form.
 */
export function AcceptInvitationPage() {
  const { token } = useSearch({ from: '/invite' });
  const preview = useQuery({ queryKey: ['invitation', token], queryFn: () => api(InvitationPreviewSchema, '/invitations/preview', { method: 'POST', body: { token } }), retry: false });
  const me = useMe();

  return (
    <main className="auth-page">
      <section className="card auth-card" aria-labelledby="invite-title">
        <h1 id="invite-title">{preview.data ? `Join ${preview.data.account_name}` : 'Invitation'}</h1>
        <InvitationBody token={token} preview={preview} me={me} />
      </section>
    </main>
  );
}

/** The invitation in words, then the one way to accept it that fits who is here: signed in, new to Junction, or known but signed out. */
function InvitationBody({ token, preview, me }: { token: string; preview: UseQueryResult<InvitationPreview>; me: UseQueryResult<z.infer<typeof MeSchema>> }) {
  if (preview.isPending || me.isPending) return <Loading what="the invitation" />;
  if (preview.isError) return <ErrorNote error={preview.error} />;
  return (
    <>
      <p>
        {preview.data.email} is invited to <strong>{preview.data.account_name}</strong> as {preview.data.role}.
      </p>
      <AcceptWay token={token} invitation={preview.data} me={me.data} />
    </>
  );
}

function AcceptWay({ token, invitation, me }: { token: string; invitation: InvitationPreview; me: z.infer<typeof MeSchema> | undefined }) {
  if (me?.signed_in) return <AcceptAsSignedIn token={token} invitation={invitation} signedInAs={me.user.email} />;
  if (invitation.new_person) return <JoinWithPassword token={token} />;
  return <SignInAndAccept token={token} invitation={invitation} />;
}

/** After joining, everything shown belongs to the new account: drop every cached answer. */
function useJoined() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return async () => {
    await queryClient.resetQueries();
    await navigate({ to: '/' });
  };
}

const accept = (token: string, password?: string) => api(AcceptedInvitationSchema, '/invitations/accept', { method: 'POST', body: { token, ...(password !== undefined && { password }) } });

function JoinWithPassword({ token }: { token: string }) {
  const joined = useJoined();
  const [error, setError] = useState<string>();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    try {
      await accept(token, String(new FormData(event.currentTarget).get('password')));
      await joined();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  return (
    <form onSubmit={submit} aria-label="Choose a password and join">
      <TextField label="Password" name="password" type="password" autoComplete="new-password" minLength={10} required error={error} hint="At least 10 characters." />
      <Button type="submit" variant="primary">
        Set password and join
      </Button>
    </form>
  );
}

function SignInAndAccept({ token, invitation }: { token: string; invitation: InvitationPreview }) {
  const joined = useJoined();
  const [error, setError] = useState<string>();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setError(undefined);
    try {
      const signedIn = await api(SignInResultSchema, '/session', { method: 'POST', body: { email: invitation.email, password: String(new FormData(event.currentTarget).get('password')) } });
      if (!signedIn.ok) return setError(signedIn.message);
      const me = await api(z.object({ csrf_token: z.string() }), '/me');
      setCsrfToken(me.csrf_token);
      await accept(token);
      await joined();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  return (
    <form onSubmit={submit} aria-label="Sign in to accept">
      <p className="muted">{invitation.email} already has a Junction sign-in: sign in to accept.</p>
      <TextField label="Email" name="email" type="email" value={invitation.email} readOnly autoComplete="username" />
      <TextField label="Password" name="password" type="password" autoComplete="current-password" required error={error} />
      <Button type="submit" variant="primary">
        Sign in and accept
      </Button>
    </form>
  );
}

function AcceptAsSignedIn({ token, invitation, signedInAs }: { token: string; invitation: InvitationPreview; signedInAs: string }) {
  const joined = useJoined();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string>();
  if (signedInAs.toLowerCase() !== invitation.email) {
    const signOut = async () => {
      await api(z.object({}).loose(), '/session', { method: 'DELETE' });
      await queryClient.resetQueries();
    };
    return (
      <>
        <p>
          You are signed in as {signedInAs}; this invitation is for {invitation.email}. Sign out, then open the link again.
        </p>
        <Button onClick={signOut}>Sign out</Button>
      </>
    );
  }
  const submit = async () => {
    try {
      await accept(token);
      await joined();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  return (
    <>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <Button variant="primary" onClick={submit}>
        Accept invitation
      </Button>
    </>
  );
}
