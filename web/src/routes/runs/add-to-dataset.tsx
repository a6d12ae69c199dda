import { Link } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { useSignedIn } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { SelectField } from '../../components/ui/field.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { useDatasetMutations, useDatasets } from '../datasets/dataset-queries.ts';

/** What a case is taken from: a run, or a turn of a conversation (its last item). */
export type CaseOrigin = { run_id: string } | { conversation_id: string; item_id: string };

/** "Add to dataset" on a run page or a conversation turn: the input (and the conversation so far) becomes a case, the answer the reference. */
export function AddToDataset({ origin, accessibleName }: { origin: CaseOrigin; accessibleName?: string }) {
  const me = useSignedIn();
  const [open, setOpen] = useState(false);
  const [added, setAdded] = useState<{ id: string; name: string }>();
  const [error, setError] = useState<string>();
  const datasets = useDatasets();
  const { fromRun } = useDatasetMutations();
  if (me?.role !== 'owner' && me?.role !== 'admin') return null;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const id = String(new FormData(event.currentTarget).get('dataset') ?? '');
    setError(undefined);
    try {
      await fromRun.mutateAsync({ id, input: origin });
      setAdded({ id, name: datasets.data?.data.find((dataset) => dataset.id === id)?.name ?? id });
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  return (
    <>
      <Button
        aria-label={accessibleName}
        onClick={() => {
          setAdded(undefined);
          setError(undefined);
          setOpen(true);
        }}
      >
        Add to dataset
      </Button>
      <Dialog open={open} onOpenChange={setOpen} title="Add to dataset" description="The run's input and the conversation before it become a case; its answer becomes the reference.">
        {datasets.isPending && <Loading what="datasets" />}
        {datasets.error && <ErrorNote error={datasets.error} />}
        {datasets.data?.data.length === 0 && (
          <p className="muted">
            No datasets yet: <Link to="/datasets">create one</Link> first.
          </p>
        )}
        {datasets.data && datasets.data.data.length > 0 && (
          <form onSubmit={submit} className="form-grid" aria-label="Add run to dataset">
            <SelectField label="Dataset" name="dataset" required defaultValue={datasets.data.data[0]?.id}>
              {datasets.data.data.map((dataset) => (
                <option key={dataset.id} value={dataset.id}>
                  {dataset.name} ({dataset.case_count} cases)
                </option>
              ))}
            </SelectField>
            {error && (
              <p className="field-error" role="alert">
                {error}
              </p>
            )}
            {added && (
              <p role="status">
                Added to{' '}
                <Link to="/datasets/$datasetId" params={{ datasetId: added.id }}>
                  {added.name}
                </Link>
                .
              </p>
            )}
            <div className="dialog-actions">
              <Button type="submit" variant="primary">
                Add case
              </Button>
            </div>
          </form>
        )}
      </Dialog>
    </>
  );
}
