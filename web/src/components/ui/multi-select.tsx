import { type ReactNode, useId, useState } from 'react';

export type MultiSelectOption = { value: string; description?: string };

/**
 * A searchable list of checkboxes inside one labelled group: typing filters the list,
 * chosen entries stay listed first and are submitted under `name` even when filtered out.
 */
export function MultiSelect({
  label,
  hint,
  name,
  options,
  defaultSelected,
  error,
  empty,
}: {
  label: string;
  hint?: string;
  name: string;
  options: MultiSelectOption[];
  defaultSelected: string[];
  error?: string | undefined;
  empty?: ReactNode;
}) {
  const id = useId();
  const [selected, setSelected] = useState(() => new Set(defaultSelected));
  const [search, setSearch] = useState('');
  const needle = search.trim().toLowerCase();
  const matches = options.filter((option) => needle === '' || option.value.toLowerCase().includes(needle) || option.description?.toLowerCase().includes(needle));
  const ordered = [...matches.filter((option) => selected.has(option.value)), ...matches.filter((option) => !selected.has(option.value))];
  const toggle = (value: string, checked: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (checked) next.add(value);
      else next.delete(value);
      return next;
    });

  return (
    <fieldset className="field multi-select" aria-describedby={error ? `${id}-error` : `${id}-count`}>
      <legend>{label}</legend>
      {options.length === 0 ? (
        (empty ?? <p className="muted small">None available.</p>)
      ) : (
        <>
          {options.length > 6 && (
            <input
              type="search"
              className="multi-select-search"
              aria-label={`Search ${label.toLowerCase()}`}
              placeholder="Type to filter"
              value={search}
              onChange={(event) => {
                // Filtering is not an edit of the form around it.
                event.stopPropagation();
                setSearch(event.target.value);
              }}
            />
          )}
          <p id={`${id}-count`} className="field-hint" aria-live="polite">
            {selected.size} selected{needle && ` · ${matches.length} of ${options.length} shown`}
            {hint && ` · ${hint}`}
          </p>
          <div className="multi-select-options">
            {ordered.map((option) => (
              <label key={option.value} className="checkbox">
                <input type="checkbox" checked={selected.has(option.value)} onChange={(event) => toggle(option.value, event.target.checked)} />
                <span>
                  <code>{option.value}</code>
                  {option.description && <span className="muted small"> {option.description}</span>}
                </span>
              </label>
            ))}
            {ordered.length === 0 && <p className="muted small">Nothing matches “{search}”.</p>}
          </div>
        </>
      )}
      {[...selected].map((value) => (
        <input key={value} type="hidden" name={name} value={value} />
      ))}
      {error && (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
