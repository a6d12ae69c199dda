import { Link } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { dateTime } from '../../api/client.ts';
import { useSignedIn } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmButton } from '../../components/ui/confirm-dialog.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { TextField } from '../../components/ui/field.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { useDatasetMutations, useDatasets } from './dataset-queries.ts';

/** `/datasets`: the account's datasets of evaluation cases, and a form to make one. */
export function DatasetsPage() {
  const me = useSignedIn();
  const canEdit = me?.role === 'owner' || me?.role === 'admin';
  const datasets = useDatasets();
  const { create, remove } = useDatasetMutations();
  const [createError, setCreateError] = useState<string>();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const fields = new FormData(form);
    setCreateError(undefined);
    try {
      await create.mutateAsync({ name: String(fields.get('name') ?? '').trim(), description: String(fields.get('description') ?? '').trim() });
      form.reset();
    } catch (caught) {
      setCreateError((caught as Error).message);
    }
  };

  return (
    <>
      <h1>Datasets</h1>
      <p className="muted">
        Cases to run an agent version against before it serves callers: an input (a message or a conversation so far), an optional reference answer, expectations and tags. Add them from runs, by hand,
        or from a JSONL file.
      </p>
      {canEdit && (
        <form onSubmit={submit} className="card inline-form" aria-label="New dataset">
          <TextField label="Dataset name" name="name" required error={createError} />
          <TextField label="Description" name="description" />
          <Button type="submit" variant="primary">
            Create dataset
          </Button>
        </form>
      )}
      {datasets.isPending && <Loading what="datasets" />}
      {datasets.error && <ErrorNote error={datasets.error} />}
      {datasets.data && datasets.data.data.length === 0 && <p className="muted">No datasets yet.</p>}
      {datasets.data && datasets.data.data.length > 0 && (
        <DataTable label="Datasets" columns={['Name', 'Description', 'Cases', 'Updated']} actions="Actions">
          {datasets.data.data.map((dataset) => (
            <tr key={dataset.id}>
              <td>
                <Link to="/datasets/$datasetId" params={{ datasetId: dataset.id }}>
                  {dataset.name}
                </Link>
              </td>
              <td>{dataset.description}</td>
              <td>{dataset.case_count}</td>
              <td>{dateTime(dataset.updated_at)}</td>
              <td>
                {canEdit && (
                  <ConfirmButton
                    label="Delete"
                    accessibleName={`Delete ${dataset.name}`}
                    title={`Delete ${dataset.name}?`}
                    description={`Its ${dataset.case_count} cases go too.`}
                    confirmLabel="Delete"
                    onConfirm={() => remove.mutateAsync(dataset.id)}
                  />
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}
