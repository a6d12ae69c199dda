/**
 * The one glob dialect of the catalog (plans, built-in rules): `*` matches any run of
 * characters including `/`, `?` one character, everything else literally. Kept tiny
 * on purpose so a plan file reads the same way to an operator as to the code.
 */

export const isGlob = (pattern: string): boolean => pattern.includes('*') || pattern.includes('?');

export const globToRegExp = (pattern: string): RegExp => {
  const body = [...pattern]
    .map((character) => {
      if (character === '*') return '.*';
      if (character === '?') return '.';
      return character.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${body}$`);
};

/** Compiles the patterns once; the returned predicate is what callers keep. */
export const globMatcher = (patterns: readonly string[]): ((value: string) => boolean) => {
  const expressions = patterns.map(globToRegExp);
  return (value) => expressions.some((expression) => expression.test(value));
};
