/** A secret shown once (a new key, an invitation link): one labelled block, selected whole on a click so it copies cleanly. */
export function ShownOnce({ label, value }: { label: string; value: string | undefined }) {
  return (
    <figure className="unframed" aria-label={label}>
      <code className="plain-key">{value}</code>
    </figure>
  );
}
