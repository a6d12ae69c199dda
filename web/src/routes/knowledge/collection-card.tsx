import type { KnowledgeCollectionSchema } from '@contract/knowledge.ts';
import type { z } from 'zod';
import { dateTime } from '../../api/client.ts';
import { ConfirmButton } from '../../components/ui/confirm-dialog.tsx';
import { DataTable } from '../../components/ui/data-table.tsx';

type Collection = z.infer<typeof KnowledgeCollectionSchema>;
type Document = Collection['documents'][number];

/** How the latest upload into a collection went: indexing, indexed, or why it failed. */
export type UploadState = { collection: string; message: string; error: boolean };

/** A file picker drawn as a button: the chosen file goes to `onFile`, and the picker is cleared so the same file can be chosen again. */
function UploadButton({ collection, onFile }: { collection: string; onFile(file: File): void }) {
  return (
    <label className="button button-secondary">
      Upload document
      <input
        className="visually-hidden"
        type="file"
        accept=".md,.markdown,.txt,.html,.htm,.pdf"
        aria-label={`Upload document to ${collection}`}
        onChange={(event) => {
          const file = event.target.files?.[0];
          event.target.value = '';
          if (file) onFile(file);
        }}
      />
    </label>
  );
}

function DocumentsTable({ collection, canDelete, onDelete }: { collection: Collection; canDelete: boolean; onDelete(document: Document): Promise<unknown> }) {
  return (
    <DataTable label={`Documents in ${collection.name}`} columns={['Document', 'Chunks', 'Indexed']} actions="Actions">
      {collection.documents.map((document) => (
        <tr key={document.id}>
          <td>{document.path}</td>
          <td>{document.chunks}</td>
          <td>{dateTime(document.indexed_at)}</td>
          <td>
            {canDelete && (
              <ConfirmButton
                label="Delete"
                accessibleName={`Delete ${document.path}`}
                title={`Delete ${document.path}?`}
                description="Its chunks go too; agents stop finding it."
                confirmLabel="Delete"
                onConfirm={() => onDelete(document)}
              />
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** One collection and its documents; an uploaded collection (owners and admins) takes new documents and lets them go. */
export function CollectionCard({
  collection,
  canEdit,
  upload,
  onUpload,
  onDelete,
}: {
  collection: Collection;
  canEdit: boolean;
  upload: UploadState | undefined;
  onUpload(file: File): void;
  onDelete(document: Document): Promise<unknown>;
}) {
  const editable = canEdit && collection.source === 'console';
  return (
    <section className="card" aria-label={`Collection ${collection.name}`}>
      <div className="section-header">
        <h2>
          {collection.name} <span className="muted small">({collection.source === 'folder' ? 'folder, read-only' : 'uploads'})</span>
        </h2>
        {editable && <UploadButton collection={collection.name} onFile={onUpload} />}
      </div>
      {upload && (
        <p className={upload.error ? 'field-error' : 'muted'} role={upload.error ? 'alert' : 'status'}>
          {upload.message}
        </p>
      )}
      {collection.documents.length === 0 ? <p className="muted">No documents yet.</p> : <DocumentsTable collection={collection} canDelete={editable} onDelete={onDelete} />}
    </section>
  );
}
