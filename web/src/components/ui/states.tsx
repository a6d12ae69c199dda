/** Loading and error states, drawn rather than forgotten. */
export const Loading = ({ what }: { what: string }) => (
  <p className="muted" role="status">
    Loading {what}…
  </p>
);

export const ErrorNote = ({ error }: { error: Error }) => (
  <p className="field-error" role="alert">
    {error.message}
  </p>
);
