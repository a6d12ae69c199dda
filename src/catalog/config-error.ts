/**
 * A catalog config that cannot be used. Start-up fails with it, so the message names
 * the file and the exact path of every problem (TensorZero style), e.g.
 * `junction.yaml: models["openai/gpt-4o"].prices.input: expected a decimal`.
 */

export type ConfigIssue = { path: string; message: string };

export class CatalogConfigError extends Error {
  readonly source: string;
  readonly issues: readonly ConfigIssue[];

  constructor(source: string, issues: readonly ConfigIssue[]) {
    super(`invalid catalog config ${source}:\n${issues.map((issue) => `  - ${issue.path}: ${issue.message}`).join('\n')}`);
    this.name = 'CatalogConfigError';
    this.source = source;
    this.issues = issues;
  }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `['models', 'openai/gpt-4o', 'prices', 'input']` → `models["openai/gpt-4o"].prices.input`. */
export const formatConfigPath = (path: ReadonlyArray<PropertyKey>): string => {
  if (path.length === 0) return '(root)';
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      const text = String(segment);
      if (IDENTIFIER.test(text)) return index === 0 ? text : `.${text}`;
      return `[${JSON.stringify(text)}]`;
    })
    .join('');
};
