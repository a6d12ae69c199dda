import { DatasetListSchema } from '@contract/datasets.ts';
import { EvaluationDetailSchema, EvaluationListSchema, EvaluationViewSchema, ExperimentListSchema, ExperimentViewSchema, type StartEvaluation, type StartExperiment } from '@contract/evaluations.ts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client.ts';

/** How often a running evaluation or experiment is read again while its page is open. */
const PROGRESS_MS = 1_000;

export const useDatasetChoices = () => useQuery({ queryKey: ['datasets'], queryFn: () => api(DatasetListSchema, '/datasets') });

export const useEvaluations = (agentId: string) =>
  useQuery({ queryKey: ['evaluations', { agentId }], queryFn: () => api(EvaluationListSchema, `/evaluations?agent=${encodeURIComponent(agentId)}`), refetchInterval: PROGRESS_MS * 5 });

export const useExperiments = () => useQuery({ queryKey: ['experiments'], queryFn: () => api(ExperimentListSchema, '/experiments') });

/** An evaluation with its results, read again each second while it runs. */
export const useEvaluation = (id: string) =>
  useQuery({
    queryKey: ['evaluations', id],
    queryFn: () => api(EvaluationDetailSchema, `/evaluations/${encodeURIComponent(id)}`),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? PROGRESS_MS : false),
    retry: false,
  });

/** An experiment's comparison, read again each second while either side runs. */
export const useExperiment = (id: string) =>
  useQuery({
    queryKey: ['experiments', id],
    queryFn: () => api(ExperimentViewSchema, `/experiments/${encodeURIComponent(id)}`),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? PROGRESS_MS : false),
    retry: false,
  });

export function useStartEvaluation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: StartEvaluation) => api(EvaluationViewSchema, '/evaluations', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['evaluations'] }),
  });
}

export function useStartExperiment() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: StartExperiment) => api(ExperimentViewSchema, '/experiments', { method: 'POST', body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['experiments'] }),
  });
}

/** Cancels a running evaluation; its page shows the result. */
export function useCancelEvaluation(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api(EvaluationDetailSchema, `/evaluations/${encodeURIComponent(id)}/cancel`, { method: 'POST' }),
    onSuccess: (detail) => {
      client.setQueryData(['evaluations', id], detail);
      return client.invalidateQueries({ queryKey: ['evaluations'] });
    },
  });
}
