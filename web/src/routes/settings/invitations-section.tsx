import type { Invitation } from '@contract/invitations.ts';
import type { Role } from '@contract/session.ts';
import { type FormEvent, useState } from 'react';
import { dateTime } from '../../api/client.ts';
import { useInvitations, useInvite, useRevokeInvitation } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmButton } from '../../components/ui/confirm-dialog.tsx';
import { CopyButton } from '../../components/ui/copy-button.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { ListView } from '../../components/ui/query-view.tsx';
import { SelectField, TextField } from '../../components/ui/field.tsx';
import { ShownOnce } from '../../components/ui/shown-once.tsx';

/**
 * Inviting people (owners and admins): the invitation's link is shown once, to be sent by
 * the inviter (Junction sends no email); open invitations are listed and can be revoked.
 */
export function InvitationsSection({ roles }: { roles: Role[] }) {
  const invitations = useInvitations();
  const invite = useInvite();
  const revoke = useRevokeInvitation();
  const [sent, setSent] = useState<{ email: string; link: string }>();
  const [error, setError] = useState<string>();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    setError(undefined);
    try {
      const invited = await invite.mutateAsync({ email: String(form.get('email')), role: String(form.get('role')) as Role });
      setSent({ email: invited.data.email, link: invited.invite_url });
      formElement.reset();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  // Links are shown once and only their hash is kept: a lost link is revoked and a new one made in its place.
  const renew = async (invitation: Invitation) => {
    await revoke.mutateAsync(invitation.id);
    const invited = await invite.mutateAsync({ email: invitation.email, role: invitation.role });
    setSent({ email: invited.data.email, link: invited.invite_url });
  };

  return (
    <>
      <form onSubmit={submit} className="inline-form" aria-label="Invite a person">
        <TextField label="Email to invite" name="email" type="email" required error={error} />
        <SelectField label="Role" name="role" defaultValue="member">
          {roles.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </SelectField>
        <Button type="submit" variant="primary" disabled={invite.isPending}>
          Invite
        </Button>
      </form>
      {sent && (
        <div className="notice" role="status">
          <p>Send this invitation link to {sent.email} yourself: Junction sends no email. It is shown once (lost it? choose New link in the list below), works once and expires in 7 days.</p>
          <ShownOnce label="Invitation link" value={sent.link} />
          <CopyButton value={sent.link} label="Copy link" />
        </div>
      )}
      <h3 id="invitations-title">Pending invitations</h3>
      <ListView query={invitations} what="invitations" empty="None.">
        {(list) => <InvitationsTable invitations={list} onRenew={renew} onRevoke={(invitation) => revoke.mutateAsync(invitation.id)} />}
      </ListView>
    </>
  );
}

/** The invitations not yet accepted: each can get a new link (the old one stops working) or be revoked. */
function InvitationsTable({ invitations, onRenew, onRevoke }: { invitations: Invitation[]; onRenew(invitation: Invitation): Promise<unknown>; onRevoke(invitation: Invitation): Promise<unknown> }) {
  return (
    <DataTable label="Pending invitations" columns={['Email', 'Role', 'Invited by', 'Expires']} actions="Actions">
      {invitations.map((invitation) => (
        <tr key={invitation.id}>
          <td>{invitation.email}</td>
          <td>{invitation.role}</td>
          <td>{invitation.invited_by ?? '—'}</td>
          <td>{new Date(invitation.expires_at) < new Date() ? 'expired' : dateTime(invitation.expires_at)}</td>
          <td className="actions">
            <ConfirmButton
              label="New link"
              variant="secondary"
              accessibleName={`New link for ${invitation.email}`}
              title={`A new link for ${invitation.email}?`}
              description="Links are shown once and only their hash is kept, so the old one cannot be shown again: it stops working and a new one is made for you to copy."
              confirmLabel="Make a new link"
              onConfirm={() => onRenew(invitation)}
            />
            <ConfirmButton
              label="Revoke"
              accessibleName={`Revoke invitation for ${invitation.email}`}
              title={`Revoke the invitation for ${invitation.email}?`}
              description="Its link stops working at once."
              confirmLabel="Revoke"
              onConfirm={() => onRevoke(invitation)}
            />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
