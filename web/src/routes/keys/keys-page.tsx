import type { ConsoleKey } from '@contract/keys.ts';
import { useState } from 'react';
import { dateTime, usd } from '../../api/client.ts';
import { useCreateKey, useDeleteKey, useKeys, useSignedIn, useUpdateKey } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmButton } from '../../components/ui/confirm-dialog.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { ListView } from '../../components/ui/query-view.tsx';
import { KeyForm } from './key-form.tsx';
import { PlainKeyNotice } from './plain-key-notice.tsx';
import { SimpleKeysSection } from './simple-keys-section.tsx';

const limitText = (key: ConsoleKey): string =>
  [
    key.daily_limit_usd !== null && `${usd(key.daily_limit_usd)}/day`,
    key.monthly_limit_usd !== null && `${usd(key.monthly_limit_usd)}/month`,
    key.total_limit_usd !== null && `${usd(key.total_limit_usd)} total`,
  ]
    .filter(Boolean)
    .join(', ') || 'none';

/** Whether a key works now: disabled by a person, past its expiry, or active. */
function keyStatus(key: ConsoleKey): string {
  if (key.disabled) return 'disabled';
  return key.expired ? 'expired' : 'active';
}

/** The model keys with their limits, spend and state; owners and admins edit, disable and delete them here. */
function ModelKeysTable({ keys, canManage, onEdit }: { keys: ConsoleKey[]; canManage: boolean; onEdit(key: ConsoleKey): void }) {
  const update = useUpdateKey();
  const remove = useDeleteKey('model');
  return (
    <DataTable label="Model keys" columns={['Name', 'Key', 'Limits', 'Spend day / month / lifetime', 'Expires', 'Models', 'RPM', 'Status', 'Last used']} actions="Actions">
      {keys.map((key) => (
        <tr key={key.id}>
          <td>
            {key.name}
            {key.description && <div className="muted small">{key.description}</div>}
          </td>
          <td>
            <code>{key.label}</code>
          </td>
          <td>{limitText(key)}</td>
          <td>
            {usd(key.spend.day_usd)} / {usd(key.spend.month_usd)} / {usd(key.spend.lifetime_usd)}
          </td>
          <td>{dateTime(key.expires_at)}</td>
          <td>{key.allowed_models?.join(', ') ?? 'all'}</td>
          <td>{key.rate_limit_rpm ?? '—'}</td>
          <td>{keyStatus(key)}</td>
          <td>{dateTime(key.last_used_at)}</td>
          <td className="actions">
            {canManage && (
              <>
                <Button onClick={() => onEdit(key)} aria-label={`Edit ${key.name}`}>
                  Edit
                </Button>
                {key.disabled ? (
                  <Button onClick={() => update.mutate({ id: key.id, input: { disabled: false } })} aria-label={`Enable ${key.name}`}>
                    Enable
                  </Button>
                ) : (
                  <ConfirmButton
                    label="Disable"
                    variant="secondary"
                    accessibleName={`Disable ${key.name}`}
                    title={`Disable ${key.name}?`}
                    description="Requests with this key are refused until you enable it again."
                    confirmLabel="Disable"
                    onConfirm={() => update.mutateAsync({ id: key.id, input: { disabled: true } })}
                  />
                )}
                <ConfirmButton
                  label="Delete"
                  accessibleName={`Delete ${key.name}`}
                  title={`Delete ${key.name}?`}
                  description="Requests with this key stop working at once. Its usage stays in the log."
                  confirmLabel="Delete"
                  onConfirm={() => remove.mutateAsync(key.id)}
                />
              </>
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

export function KeysPage() {
  const me = useSignedIn();
  const keys = useKeys('model');
  const create = useCreateKey('model');
  const update = useUpdateKey();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<ConsoleKey>();
  const [plainKey, setPlainKey] = useState<string>();
  const canManage = me?.role === 'owner' || me?.role === 'admin';

  return (
    <>
      <div className="section-header">
        <h1>Keys</h1>
        {canManage && (
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create key
          </Button>
        )}
      </div>
      <section className="card" aria-label="Model keys">
        <ListView query={keys} what="keys" empty="No model keys yet. Create one to call models under /v1.">
          {(list) => <ModelKeysTable keys={list} canManage={canManage} onEdit={setEditing} />}
        </ListView>
      </section>
      <SimpleKeysSection kind="provisioning" title="Provisioning keys" createLabel="Create provisioning key" canManage={canManage} />

      <Dialog open={creating} onOpenChange={setCreating} title="Create key" description="A model key calls models under /v1 within these limits.">
        <KeyForm
          submitLabel="Create"
          onSubmit={async (input) => {
            const created = await create.mutateAsync(input);
            setCreating(false);
            setPlainKey(created.key);
          }}
        />
      </Dialog>
      <Dialog open={editing !== undefined} onOpenChange={(open) => !open && setEditing(undefined)} title={`Edit ${editing?.name ?? 'key'}`} description="A blank limit removes it.">
        {editing && (
          <KeyForm
            initial={editing}
            submitLabel="Save"
            onSubmit={async (input) => {
              await update.mutateAsync({ id: editing.id, input });
              setEditing(undefined);
            }}
          />
        )}
      </Dialog>
      <PlainKeyNotice plainKey={plainKey} onClose={() => setPlainKey(undefined)} withSnippets />
    </>
  );
}
