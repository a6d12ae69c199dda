import type { CaseView } from '@contract/datasets.ts';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { useSignedIn } from '../../api/queries.ts';
import { Button } from '../../components/ui/button.tsx';
import { ConfirmButton } from '../../components/ui/confirm-dialog.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';
import { Dialog } from '../../components/ui/dialog.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { CaseForm, inputSummary } from './case-form.tsx';
import { exportUrl, useCases, useDataset, useDatasetMutations } from './dataset-queries.ts';

/** Where a case came from, in words: a run (linked), a file, or by hand. */
function SourceCell({ source }: { source: CaseView['source'] }) {
  const named = source?.['run_id'] ?? source?.['response_id'];
  const runId = typeof named === 'string' ? named : undefined;
  if (runId) {
    return (
      <Link to="/runs/$runId" params={{ runId }}>
        run
      </Link>
    );
  }
  if (typeof source?.['file'] === 'string') return <>{source['file']}</>;
  return <span className="muted">by hand</span>;
}

function ImportButton({ datasetId, name }: { datasetId: string; name: string }) {
  const { importCases } = useDatasetMutations();
  const [state, setState] = useState<{ message: string; error: boolean }>();
  return (
    <>
      <label className="button button-secondary">
        Import JSONL
        <input
          className="visually-hidden"
          type="file"
          accept=".jsonl,.ndjson,.json,.txt"
          aria-label={`Import JSONL into ${name}`}
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (!file) return;
            setState({ message: `Importing ${file.name}…`, error: false });
            importCases.mutateAsync({ id: datasetId, file }).then(
              (result) => setState({ message: `Imported ${result.imported} case${result.imported === 1 ? '' : 's'} from ${file.name}.`, error: false }),
              (error: Error) => setState({ message: error.message, error: true }),
            );
          }}
        />
      </label>
      {state && (
        <p className={state.error ? 'field-error' : 'muted'} role={state.error ? 'alert' : 'status'}>
          {state.message}
        </p>
      )}
    </>
  );
}

function CaseRow({ datasetId, entry, canEdit }: { datasetId: string; entry: CaseView; canEdit: boolean }) {
  const { editCase, removeCase } = useDatasetMutations();
  const [editing, setEditing] = useState(false);
  const summary = inputSummary(entry.input);
  return (
    <tr>
      <td>{summary}</td>
      <td>{entry.reference ?? <span className="muted">—</span>}</td>
      <td>{entry.tags.join(', ')}</td>
      <td>{entry.expect ? Object.keys(entry.expect).join(', ') : ''}</td>
      <td>
        <SourceCell source={entry.source} />
      </td>
      <td>
        {canEdit && (
          <div className="section-actions">
            <Button onClick={() => setEditing(true)} aria-label={`Edit case ${summary.slice(0, 40)}`}>
              Edit
            </Button>
            <Dialog open={editing} onOpenChange={setEditing} title="Edit case">
              <CaseForm initial={entry} submitLabel="Save case" onSubmit={(patch) => editCase.mutateAsync({ id: datasetId, caseId: entry.id, patch }).then(() => setEditing(false))} />
            </Dialog>
            <ConfirmButton
              label="Delete"
              accessibleName={`Delete case ${summary.slice(0, 40)}`}
              title="Delete this case?"
              description={summary.slice(0, 200)}
              confirmLabel="Delete"
              onConfirm={() => removeCase.mutateAsync({ id: datasetId, caseId: entry.id })}
            />
          </div>
        )}
      </td>
    </tr>
  );
}

/** `/datasets/{id}`: a dataset's cases in a table, added by hand or imported, edited, exported. */
export function DatasetPage() {
  const { datasetId } = useParams({ from: '/app/datasets/$datasetId' });
  const navigate = useNavigate();
  const me = useSignedIn();
  const canEdit = me?.role === 'owner' || me?.role === 'admin';
  const [cursors, setCursors] = useState<string[]>([]);
  const dataset = useDataset(datasetId);
  const cases = useCases(datasetId, cursors.at(-1));
  const { addCase, remove } = useDatasetMutations();

  if (dataset.isPending) return <Loading what="the dataset" />;
  if (dataset.error) return <ErrorNote error={dataset.error} />;
  const { name } = dataset.data;

  return (
    <>
      <div className="section-header">
        <h1>{name}</h1>
        <div className="section-actions">
          <a className="button button-secondary" href={exportUrl(dataset.data.id)} download={`${name}.jsonl`}>
            Export JSONL
          </a>
          {canEdit && <ImportButton datasetId={dataset.data.id} name={name} />}
          {canEdit && (
            <ConfirmButton
              label="Delete dataset"
              title={`Delete ${name}?`}
              description={`Its ${dataset.data.case_count} cases go too.`}
              confirmLabel="Delete"
              onConfirm={() => remove.mutateAsync(dataset.data.id).then(() => navigate({ to: '/datasets' }))}
            />
          )}
        </div>
      </div>
      {dataset.data.description && <p className="muted">{dataset.data.description}</p>}
      <section className="card" aria-labelledby="cases-title">
        <h2 id="cases-title">Cases ({dataset.data.case_count})</h2>
        {cases.isPending && <Loading what="cases" />}
        {cases.error && <ErrorNote error={cases.error} />}
        {cases.data && cases.data.data.length === 0 && <p className="muted">No cases yet: add one below, import a JSONL file, or use "Add to dataset" on a run page.</p>}
        {cases.data && cases.data.data.length > 0 && (
          <DataTable label={`Cases of ${name}`} columns={['Input', 'Reference', 'Tags', 'Expectations', 'Source']} actions="Actions">
            {cases.data.data.map((entry) => (
              <CaseRow key={entry.id} datasetId={dataset.data.id} entry={entry} canEdit={canEdit} />
            ))}
          </DataTable>
        )}
        <div className="pager">
          {cursors.length > 0 && <Button onClick={() => setCursors(cursors.slice(0, -1))}>Previous cases</Button>}
          {cases.data?.next_cursor && <Button onClick={() => setCursors([...cursors, cases.data.next_cursor ?? ''])}>Next cases</Button>}
        </div>
      </section>
      {canEdit && (
        <section className="card" aria-labelledby="add-case-title">
          <h2 id="add-case-title">Add a case</h2>
          <p className="muted small">The input is one message, or a JSON array of {'{"role", "content"}'} messages for a conversation so far.</p>
          <CaseForm submitLabel="Add case" onSubmit={(input) => addCase.mutateAsync({ id: dataset.data.id, input })} />
        </section>
      )}
    </>
  );
}
