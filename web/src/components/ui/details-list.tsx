/** Name and value pairs, as a description list (a call's fields, a run's summary). */
export function DetailsList({ label, rows }: { label?: string; rows: ReadonlyArray<readonly [string, string]> }) {
  return (
    <dl className="details" aria-label={label}>
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
