import type { ReactNode } from 'react';

/**
 * A labelled table with its column headers, scrolling sideways on narrow screens.
 * `actions` names the last column (row buttons), which has no visible heading but
 * must still be announced by screen readers.
 */
export function DataTable({ label, columns, actions, children }: { label: string; columns: readonly string[]; actions?: string; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table aria-label={label}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column}>
                {column}
              </th>
            ))}
            {actions && (
              <th scope="col">
                <span className="visually-hidden">{actions}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
