import { CreditAccountListSchema, CreditsSchema, GrantedSchema, type GrantInput } from '@contract/credits.ts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client.ts';

/** The session account's balance, grants and monthly spend; refreshed when the page regains focus, as spend moves it. */
export const useCredits = () => useQuery({ queryKey: ['credits'], queryFn: () => api(CreditsSchema, '/credits'), refetchInterval: 30_000 });

/** Every account of the server with its balance (operators only). */
export const useCreditAccounts = (enabled: boolean) => useQuery({ queryKey: ['credits', 'accounts'], queryFn: () => api(CreditAccountListSchema, '/credits/accounts'), enabled });

/** Grants credit to an account; balances shown anywhere (this page, the Overview) are read again. */
export function useGrantCredit() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: GrantInput) => api(GrantedSchema, '/credits/grants', { method: 'POST', body: input }),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['credits'] }), client.invalidateQueries({ queryKey: ['overview'] })]),
  });
}
