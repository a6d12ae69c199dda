import type { Role } from '@contract/session.ts';
import { type FormEvent, useState } from 'react';
import { dateTime } from '../../api/client.ts';
import { useAddMember, useChangeRole, useMembers, useSignedIn, useRemoveMember } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmButton } from '../../components/ui/confirm-dialog.tsx';
import { CopyButton } from '../../components/ui/copy-button.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { SelectField, TextField } from '../../components/ui/field.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { SimpleKeysSection } from '../keys/simple-keys-section.tsx';

const ROLES: Role[] = ['owner', 'admin', 'member'];

function MembersSection({ canManage, isOwner }: { canManage: boolean; isOwner: boolean }) {
  const members = useMembers();
  const add = useAddMember();
  const changeRole = useChangeRole();
  const remove = useRemoveMember();
  const [link, setLink] = useState<string | null>();
  const [error, setError] = useState<string>();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    setError(undefined);
    try {
      const added = await add.mutateAsync({ email: String(form.get('email')), role: String(form.get('role')) as Role });
      setLink(added.set_password_url);
      formElement.reset();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  return (
    <section className="card" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      {members.isPending ? (
        <Loading what="members" />
      ) : members.error ? (
        <ErrorNote error={members.error} />
      ) : (
        <DataTable label="Members" columns={['Email', 'Role', 'Joined']} actions="Actions">
          {members.data.data.map((member) => (
            <tr key={member.user_id}>
              <td>
                {member.email}
                {!member.has_password && <span className="muted small"> (invited)</span>}
              </td>
              <td>
                {canManage ? (
                  <select aria-label={`Role of ${member.email}`} value={member.role} onChange={(event) => changeRole.mutate({ userId: member.user_id, role: event.target.value as Role })}>
                    {ROLES.filter((role) => isOwner || role !== 'owner' || member.role === 'owner').map((role) => (
                      <option key={role} value={role}>
                        {role}
                      </option>
                    ))}
                  </select>
                ) : (
                  member.role
                )}
              </td>
              <td>{dateTime(member.joined_at)}</td>
              <td>{canManage && <ConfirmButton label="Remove" accessibleName={`Remove ${member.email}`} title={`Remove ${member.email}?`} description="They lose access to this account at once." confirmLabel="Remove" onConfirm={() => remove.mutateAsync(member.user_id)} />}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {changeRole.error && <ErrorNote error={changeRole.error} />}
      {canManage && (
        <form onSubmit={submit} className="inline-form" aria-label="Add a member">
          <TextField label="Member email" name="email" type="email" required error={error} />
          <SelectField label="Role" name="role" defaultValue="member">
            {ROLES.filter((role) => isOwner || role !== 'owner').map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </SelectField>
          <Button type="submit" variant="primary">
            Add member
          </Button>
        </form>
      )}
      {link && (
        <div className="notice" role="status">
          <p>Send this one-time link so they can set a password (shown once, valid 7 days):</p>
          <code className="plain-key">{link}</code>
          <CopyButton value={link} label="Copy link" />
        </div>
      )}
    </section>
  );
}

export function SettingsPage() {
  const me = useSignedIn();
  if (!me) return <Loading what="settings" />;
  const account = me.accounts.find((entry) => entry.account_id === me.current_account_id);
  const canManage = me.role === 'owner' || me.role === 'admin';
  return (
    <>
      <h1>Settings</h1>
      <section className="card" aria-label="Plan">
        <h2>Plan</h2>
        <p>
          Account <strong>{account?.account_name}</strong> is on the <strong>{account?.plan}</strong> plan. Your role: {me.role}.
        </p>
      </section>
      <SimpleKeysSection kind="agent" title="Agent keys" createLabel="Create agent key" canManage={canManage} />
      <MembersSection canManage={canManage} isOwner={me.role === 'owner'} />
    </>
  );
}
