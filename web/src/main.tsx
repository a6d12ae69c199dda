import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api/client.ts';
import { PUBLIC_PAGES, returnHere } from './api/sign-in-return.ts';
import { router } from './router.tsx';
import './styles.css';

/** A session that ended elsewhere (signed out in another tab, expired): to sign-in, then back to this page. */
function onApiError(error: Error): void {
  if (!(error instanceof ApiError && error.status === 401)) return;
  if (PUBLIC_PAGES.includes(window.location.pathname)) return;
  const search = returnHere();
  queryClient.clear();
  void router.navigate({ to: '/sign-in', search });
}

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: onApiError }),
  mutationCache: new MutationCache({ onError: onApiError }),
  defaultOptions: {
    // A 4xx will not change on retry; a network blip may. Offline, a request fails and says so instead of waiting for ever.
    queries: { networkMode: 'always', retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2 },
    mutations: { networkMode: 'always' },
  },
});

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
