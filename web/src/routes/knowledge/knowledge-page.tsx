import { KnowledgeListSchema, KnowledgeSearchResultSchema, UploadedDocumentSchema } from '@contract/knowledge.ts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { z } from 'zod';
import { api, ApiError, currentCsrfToken } from '../../api/client.ts';
import { useSignedIn } from '../../api/queries.ts';
import { withContentKeys } from '../../components/content-keys.ts';
import { Button } from '../../components/ui/button.tsx';
import { SelectField, TextField } from '../../components/ui/field.tsx';
import { ErrorNote, Loading } from '../../components/ui/states.tsx';
import { CollectionCard, type UploadState } from './collection-card.tsx';

const Ok = z.object({}).loose();

/** Uploads go as multipart (not JSON), so outside `api()`; the answer is checked with the shared schema all the same. */
async function uploadDocument(collection: string, file: File) {
  const form = new FormData();
  form.append('file', file);
  const response = await fetch(`/console/api/knowledge/collections/${encodeURIComponent(collection)}/documents`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'x-csrf-token': currentCsrfToken() },
    body: form,
  });
  const body: unknown = await response.json();
  if (!response.ok) throw new ApiError(response.status, (body as { error?: { message?: string } }).error?.message ?? 'Upload failed', null);
  return UploadedDocumentSchema.parse(body);
}

function SearchBox({ collections }: { collections: string[] }) {
  const [search, setSearch] = useState({ query: '', collection: '' });
  const path = `/knowledge/search?q=${encodeURIComponent(search.query)}${search.collection ? `&collection=${encodeURIComponent(search.collection)}` : ''}`;
  const results = useQuery({ queryKey: ['knowledge-search', search], queryFn: () => api(KnowledgeSearchResultSchema, path), enabled: search.query !== '' });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setSearch({ query: String(form.get('q') ?? '').trim(), collection: String(form.get('collection') ?? '') });
  };
  return (
    <section className="card" aria-label="Knowledge search">
      <h2>Search</h2>
      <p className="muted small">What an agent with these collections would retrieve for this question.</p>
      <form onSubmit={submit} className="inline-form">
        <TextField label="Search knowledge" name="q" required />
        <SelectField label="Collection" name="collection" defaultValue="">
          <option value="">All collections</option>
          {collections.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </SelectField>
        <Button type="submit" variant="primary">
          Search
        </Button>
      </form>
      {results.isFetching && <Loading what="results" />}
      {results.error && <ErrorNote error={results.error} />}
      {results.data && (
        <p className="muted small">
          {results.data.mode === 'hybrid' ? 'Ranked by meaning and by words together.' : 'Ranked by the words in common (no embedding model, so not by meaning).'} A higher score is a closer match for
          this question; scores are not percentages and do not compare across questions.
        </p>
      )}
      {results.data && (
        <ol className="plain search-hits" aria-label="Retrieved chunks">
          {results.data.hits.length === 0 && <li className="muted">Nothing found.</li>}
          {withContentKeys(results.data.hits, (hit) => `${hit.collection}/${hit.path} ${hit.heading} ${hit.score}`).map(({ key, item: hit }) => (
            <li key={key} className="step tool">
              <p>
                <code>
                  {hit.collection}/{hit.path}
                </code>
                {hit.heading && ` › ${hit.heading}`} · score {hit.score.toFixed(4)} ({results.data.mode})
              </p>
              <p className="small">{hit.content}</p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** A new uploaded collection, by name; the server says why a name is refused. */
function NewCollectionForm({ create }: { create(name: string): Promise<unknown> }) {
  const [createError, setCreateError] = useState<string>();
  const createCollection = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    setCreateError(undefined);
    try {
      await create(String(new FormData(form).get('name') ?? '').trim());
      form.reset();
    } catch (caught) {
      setCreateError((caught as Error).message);
    }
  };
  return (
    <form onSubmit={createCollection} className="card inline-form" aria-label="New collection">
      <TextField label="Collection name" name="name" required error={createError} />
      <Button type="submit" variant="primary">
        Create collection
      </Button>
    </form>
  );
}

/** The account's knowledge: folder collections (read-only), uploaded collections, and a search box. */
export function KnowledgePage() {
  const client = useQueryClient();
  const me = useSignedIn();
  const canEdit = me?.role === 'owner' || me?.role === 'admin';
  const knowledge = useQuery({ queryKey: ['knowledge'], queryFn: () => api(KnowledgeListSchema, '/knowledge') });
  const refresh = () => client.invalidateQueries({ queryKey: ['knowledge'] });
  const create = useMutation({ mutationFn: (name: string) => api(Ok, '/knowledge/collections', { method: 'POST', body: { name } }), onSuccess: refresh });
  const upload = useMutation({ mutationFn: ({ collection, file }: { collection: string; file: File }) => uploadDocument(collection, file), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: ({ collection, id }: { collection: string; id: number }) => api(Ok, `/knowledge/collections/${encodeURIComponent(collection)}/documents/${id}`, { method: 'DELETE' }),
    onSuccess: refresh,
  });
  const [uploadState, setUploadState] = useState<UploadState>();

  if (knowledge.isPending) return <Loading what="knowledge" />;
  if (knowledge.error) return <ErrorNote error={knowledge.error} />;
  const limitMb = knowledge.data.upload_limit_bytes / 1024 / 1024;

  return (
    <>
      <h1>Knowledge</h1>
      <p className="muted">
        Collections agents can search. Folder collections come from the knowledge folder; uploaded ones live in this account. Uploads: .md, .txt, .html, .pdf up to {limitMb} MB each.
      </p>
      {canEdit && <NewCollectionForm create={(name) => create.mutateAsync(name)} />}
      {knowledge.data.data.map((collection) => (
        <CollectionCard
          key={collection.name}
          collection={collection}
          canEdit={canEdit}
          upload={uploadState?.collection === collection.name ? uploadState : undefined}
          onUpload={(file) => {
            setUploadState({ collection: collection.name, message: `Indexing ${file.name}…`, error: false });
            // Each upload reports its own outcome (per-call mutate callbacks fire for the latest call only).
            upload.mutateAsync({ collection: collection.name, file }).then(
              (result) => setUploadState({ collection: collection.name, message: `Indexed ${result.data.path}: ${result.data.chunks} chunks.`, error: false }),
              (error: Error) => setUploadState({ collection: collection.name, message: error.message, error: true }),
            );
          }}
          onDelete={(document) => remove.mutateAsync({ collection: collection.name, id: document.id })}
        />
      ))}
      <SearchBox collections={knowledge.data.data.map((collection) => collection.name)} />
    </>
  );
}
