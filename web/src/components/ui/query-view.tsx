import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorNote, Loading } from './states.tsx';

/** A query drawn in its three states: loading, its error, or what its data shows. */
export function QueryView<T>({ query, what, children }: { query: UseQueryResult<T>; what: string; children: (data: T) => ReactNode }) {
  if (query.isPending) return <Loading what={what} />;
  if (query.isError) return <ErrorNote error={query.error} />;
  return children(query.data);
}

/** A list query: loading, its error, a note when the list is empty, or its items drawn. */
export function ListView<T>({ query, what, empty, children }: { query: UseQueryResult<{ data: T[] }>; what: string; empty: string; children: (items: T[]) => ReactNode }) {
  return (
    <QueryView query={query} what={what}>
      {({ data }) => (data.length === 0 ? <p className="muted">{empty}</p> : children(data))}
    </QueryView>
  );
}
