import { withContentKeys } from '../content-keys.ts';

type DiffLine = { kind: 'same' | 'removed' | 'added'; text: string };

const MARKS = { same: ' ', removed: '-', added: '+' } as const;

/** A line diff as one labelled block of text, each line marked (+, -) and coloured by its kind. */
export function LineDiff({ label, lines }: { label: string; lines: readonly DiffLine[] }) {
  return (
    <figure className="unframed" aria-label={label}>
      <pre className="definition version-diff">
        {withContentKeys(lines, (line) => `${line.kind} ${line.text}`).map(({ key, item: line }) => (
          <span key={key} className={`diff-${line.kind}`}>
            {`${MARKS[line.kind]} ${line.text}\n`}
          </span>
        ))}
      </pre>
    </figure>
  );
}
