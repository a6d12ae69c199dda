import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  type AddCaseInput,
  type CaseFromRunInput,
  CasePageSchema,
  CaseViewSchema,
  type CreateDatasetInput,
  DatasetListSchema,
  DatasetViewSchema,
  type EditCaseInput,
  ImportResultSchema,
} from '@contract/datasets.ts';
import { z } from 'zod';
import { ApiError, api, currentCsrfToken } from '../../api/client.ts';

const Ok = z.object({}).loose();
const path = (id: string) => `/datasets/${encodeURIComponent(id)}`;

export const useDatasets = () => useQuery({ queryKey: ['datasets'], queryFn: () => api(DatasetListSchema, '/datasets') });
export const useDataset = (id: string) => useQuery({ queryKey: ['datasets', id], queryFn: () => api(DatasetViewSchema, path(id)), retry: false });
export const useCases = (id: string, cursor: string | undefined) =>
  useQuery({ queryKey: ['datasets', id, 'cases', cursor ?? ''], queryFn: () => api(CasePageSchema, `${path(id)}/cases${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`) });

/** Where the browser downloads a dataset as JSONL (a plain GET with the session cookie). */
export const exportUrl = (id: string) => `/console/api${path(id)}/export`;

/** JSONL goes as its own content type (not JSON), so outside `api()`; the answer is checked with the shared schema all the same. */
async function importFile(id: string, file: File) {
  const response = await fetch(`/console/api${path(id)}/import?file=${encodeURIComponent(file.name.slice(0, 200))}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/x-ndjson', 'x-csrf-token': currentCsrfToken() },
    body: await file.text(),
  });
  const body: unknown = await response.json();
  if (!response.ok) throw new ApiError(response.status, (body as { error?: { message?: string } }).error?.message ?? 'Import failed', null);
  return ImportResultSchema.parse(body);
}

/** Mutations of datasets and their cases; each invalidates the lists it changes. */
export function useDatasetMutations() {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ['datasets'] });
  return {
    create: useMutation({ mutationFn: (input: CreateDatasetInput) => api(DatasetViewSchema, '/datasets', { method: 'POST', body: input }), onSuccess: refresh }),
    remove: useMutation({ mutationFn: (id: string) => api(Ok, path(id), { method: 'DELETE' }), onSuccess: refresh }),
    addCase: useMutation({ mutationFn: ({ id, input }: { id: string; input: AddCaseInput }) => api(CaseViewSchema, `${path(id)}/cases`, { method: 'POST', body: input }), onSuccess: refresh }),
    editCase: useMutation({
      mutationFn: ({ id, caseId, patch }: { id: string; caseId: string; patch: EditCaseInput }) =>
        api(CaseViewSchema, `${path(id)}/cases/${encodeURIComponent(caseId)}`, { method: 'PATCH', body: patch }),
      onSuccess: refresh,
    }),
    removeCase: useMutation({ mutationFn: ({ id, caseId }: { id: string; caseId: string }) => api(Ok, `${path(id)}/cases/${encodeURIComponent(caseId)}`, { method: 'DELETE' }), onSuccess: refresh }),
    importCases: useMutation({ mutationFn: ({ id, file }: { id: string; file: File }) => importFile(id, file), onSuccess: refresh }),
    fromRun: useMutation({
      mutationFn: ({ id, input }: { id: string; input: CaseFromRunInput }) => api(CaseViewSchema, `${path(id)}/cases/from-run`, { method: 'POST', body: input }),
      onSuccess: refresh,
    }),
  };
}
