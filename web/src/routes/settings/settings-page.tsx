import type { Member } from '@contract/members.ts';
import type { Role } from '@contract/session.ts';
import { useState } from 'react';
import { dateTime } from '../../api/client.ts';
import { useChangeRole, useMembers, useSignedIn, useRemoveMember } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmButton } from '../../components/ui/confirm-dialog.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { QueryView } from '../../components/ui/query-view.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { SimpleKeysSection } from '../keys/simple-keys-section.tsx';
import { InvitationsSection } from './invitations-section.tsx';
import { RunHistorySection } from './run-history-section.tsx';

const ROLES: Role[] = ['owner', 'admin', 'member'];
const ROLE_MEANING: Record<Role, string> = {
  owner: 'Owners manage everything, other owners included.',
  admin: 'Admins manage keys, agents and members (not owners).',
  member: 'Members see the account and use the playground; they change nothing.',
};

type RoleChange = { userId: string; email: string; role: Role };

/** The members with their roles; owners and admins change a role (confirmed in a dialog) or remove someone. */
function MembersTable({ members, canManage, isOwner, selfId, onRoleChange }: { members: Member[]; canManage: boolean; isOwner: boolean; selfId: string; onRoleChange(change: RoleChange): void }) {
  const remove = useRemoveMember();
  return (
    <DataTable label="Members" columns={['Email', 'Role', 'Joined']} actions="Actions">
      {members.map((member) => (
        <tr key={member.user_id}>
          <td>
            {member.email}
            {!member.has_password && <span className="muted small"> (no password yet)</span>}
          </td>
          <td>
            {canManage ? (
              <select aria-label={`Role of ${member.email}`} value={member.role} onChange={(event) => onRoleChange({ userId: member.user_id, email: member.email, role: event.target.value as Role })}>
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
          <td>
            {canManage && member.user_id !== selfId && (
              <ConfirmButton
                label="Remove"
                accessibleName={`Remove ${member.email}`}
                title={`Remove ${member.email}?`}
                description="They lose access to this account at once, and the invitations they made stop working."
                confirmLabel="Remove"
                onConfirm={() => remove.mutateAsync(member.user_id)}
              />
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function MembersSection({ canManage, isOwner, selfId }: { canManage: boolean; isOwner: boolean; selfId: string }) {
  const members = useMembers();
  const changeRole = useChangeRole();
  // A role change waits for a confirmation: the select alone is too easy to change by accident.
  const [roleChange, setRoleChange] = useState<RoleChange>();

  return (
    <section className="card" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <QueryView query={members} what="members">
        {({ data }) => <MembersTable members={data} canManage={canManage} isOwner={isOwner} selfId={selfId} onRoleChange={setRoleChange} />}
      </QueryView>
      {changeRole.error && <ErrorNote error={changeRole.error} />}
      {!canManage && <p className="muted">Only owners and admins invite people, change roles and remove members.</p>}
      {canManage && <InvitationsSection roles={ROLES.filter((role) => isOwner || role !== 'owner')} />}
      <Dialog
        open={roleChange !== undefined}
        onOpenChange={(open) => !open && setRoleChange(undefined)}
        title={`Make ${roleChange?.email ?? ''} ${roleChange?.role === 'admin' ? 'an admin' : `a${roleChange?.role === 'owner' ? 'n owner' : ' member'}`}?`}
        description={ROLE_MEANING[roleChange?.role ?? 'member']}
      >
        <div className="dialog-actions">
          <Button onClick={() => setRoleChange(undefined)}>Cancel</Button>
          <Button
            variant="primary"
            onClick={() => {
              if (roleChange) changeRole.mutate({ userId: roleChange.userId, role: roleChange.role });
              setRoleChange(undefined);
            }}
          >
            Change role
          </Button>
        </div>
      </Dialog>
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
      <MembersSection canManage={canManage} isOwner={me.role === 'owner'} selfId={me.user.id} />
      <RunHistorySection canManage={canManage} />
    </>
  );
}
