import { type FormEvent, useState } from 'react';
import { dateTime } from '../../api/client.ts';
import type { ConsoleKey, KeyKind } from '@contract/keys.ts';
import { useCreateKey, useDeleteKey, useKeys } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmButton } from '../../components/ui/confirm-dialog.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { TextField } from '../../components/ui/field.tsx';
import { ListView } from '../../components/ui/query-view.tsx';
import { PlainKeyNotice } from './plain-key-notice.tsx';

/** Provisioning keys (Keys page) and agent keys (Settings): name, optional expiry, list, revoke. */
export function SimpleKeysSection({ kind, title, createLabel, canManage }: { kind: Exclude<KeyKind, 'model'>; title: string; createLabel: string; canManage: boolean }) {
  const keys = useKeys(kind);
  const create = useCreateKey(kind);
  const [open, setOpen] = useState(false);
  const [plainKey, setPlainKey] = useState<string>();
  const [error, setError] = useState<string>();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const expiry = String(form.get('expires_at') ?? '');
    try {
      const created = await create.mutateAsync({ name: String(form.get('name')), expires_at: expiry ? new Date(expiry).toISOString() : null });
      setOpen(false);
      setPlainKey(created.key);
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  return (
    <section className="card" aria-labelledby={`${kind}-keys-title`}>
      <div className="section-header">
        <h2 id={`${kind}-keys-title`}>{title}</h2>
        {canManage && (
          <Button variant="primary" onClick={() => setOpen(true)}>
            {createLabel}
          </Button>
        )}
      </div>
      <ListView query={keys} what={title.toLowerCase()} empty="None yet.">
        {(list) => <SimpleKeysTable kind={kind} title={title} keys={list} canManage={canManage} />}
      </ListView>
      <Dialog open={open} onOpenChange={setOpen} title={createLabel}>
        <form onSubmit={submit} className="form-grid">
          <TextField label="Name" name="name" required error={error} />
          <TextField label="Expiry" name="expires_at" type="datetime-local" hint="Optional." />
          <div className="dialog-actions">
            <Button type="submit" variant="primary">
              Create
            </Button>
          </div>
        </form>
      </Dialog>
      <PlainKeyNotice plainKey={plainKey} onClose={() => setPlainKey(undefined)} />
    </section>
  );
}

function SimpleKeysTable({ kind, title, keys, canManage }: { kind: Exclude<KeyKind, 'model'>; title: string; keys: ConsoleKey[]; canManage: boolean }) {
  const remove = useDeleteKey(kind);
  return (
    <DataTable label={title} columns={['Name', 'Key', 'Expires', 'Last used']} actions="Actions">
      {keys.map((key) => (
        <tr key={key.id}>
          <td>{key.name}</td>
          <td>
            <code>{key.label}</code>
          </td>
          <td>{dateTime(key.expires_at)}</td>
          <td>{dateTime(key.last_used_at)}</td>
          <td>
            {canManage && (
              <ConfirmButton
                label="Revoke"
                accessibleName={`Revoke ${key.name}`}
                title={`Revoke ${key.name}?`}
                description="Requests with this key stop working at once."
                confirmLabel="Revoke"
                onConfirm={() => remove.mutateAsync(key.id)}
              />
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
