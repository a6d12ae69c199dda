/** Human output for the terminal; `--json` prints the result object as is. */
export function printResult(result: unknown, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const { key, data } = (result ?? {}) as { key?: string; data?: unknown };
  if (key) {
    process.stdout.write(`\n  ${key}\n\nThis is the only time the key is shown. Store it somewhere safe.\n\n`);
  }
  if (Array.isArray(data)) {
    if (data.length === 0) process.stdout.write('(none)\n');
    else console.table(data.map(summarise));
  } else if (data !== undefined) {
    process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  }
}

/** The columns that fit a terminal row. */
function summarise(row: unknown): Record<string, unknown> {
  const record = row as Record<string, unknown>;
  const wanted = ['id', 'kind', 'name', 'label', 'disabled', 'usage', 'limit', 'plan', 'default'];
  return Object.fromEntries(wanted.filter((field) => field in record).map((field) => [field, record[field]]));
}
