/**
 * A string that counts the work string methods do on it, for hostile-input tests that bound
 * a scan's work in countable units instead of in time:
 *   steps       characters read one at a time (`text[i]`, `charCodeAt`, `charAt`, `at`, `codePointAt`)
 *   chars       characters covered by a native search or copy (`indexOf` up to its hit, `slice`, …)
 *   wholeReads  times the whole text was taken as a primitive (a regular expression, `split`, `+`)
 * Each count throws a WorkBudgetExceeded once it passes its budget, so a scan gone quadratic fails at
 * once instead of running on. Pass `counted.text` where the code takes a string (it is a String object).
 */
export type WorkCounts = { steps: number; chars: number; wholeReads: number };

export class WorkBudgetExceeded extends Error {
  constructor(unit: keyof WorkCounts, budget: number) {
    super(`the scan passed its budget of ${budget} ${unit}`);
  }
}

export function countedText(text: string, budget: Partial<WorkCounts> = {}): { text: string; counts: WorkCounts } {
  const counts: WorkCounts = { steps: 0, chars: 0, wholeReads: 0 };
  const charge = (unit: keyof WorkCounts, amount: number) => {
    counts[unit] += amount;
    const limit = budget[unit];
    if (limit !== undefined && counts[unit] > limit) throw new WorkBudgetExceeded(unit, limit);
  };
  const single = (name: 'charCodeAt' | 'charAt' | 'at' | 'codePointAt') => (index?: number) => {
    charge('steps', 1);
    return text[name](index as number);
  };
  const methods: Record<string | symbol, (...args: never[]) => unknown> = {
    charCodeAt: single('charCodeAt'),
    charAt: single('charAt'),
    at: single('at'),
    codePointAt: single('codePointAt'),
    indexOf: (needle: string, from = 0) => {
      const found = text.indexOf(needle, from);
      charge('chars', (found === -1 ? text.length : found + needle.length) - Math.max(0, from));
      return found;
    },
    lastIndexOf: (needle: string, from = text.length) => {
      const found = text.lastIndexOf(needle, from);
      charge('chars', Math.min(from, text.length) - (found === -1 ? 0 : found) + needle.length);
      return found;
    },
    startsWith: (needle: string, position = 0) => {
      charge('chars', needle.length);
      return text.startsWith(needle, position);
    },
    slice: (start?: number, end?: number) => {
      const copy = text.slice(start, end);
      charge('chars', copy.length);
      return copy;
    },
    substring: (start: number, end?: number) => {
      const copy = text.substring(start, end);
      charge('chars', copy.length);
      return copy;
    },
  };
  const whole = () => {
    charge('wholeReads', 1);
    return text;
  };
  const proxy = new Proxy(new String(text), {
    get(target, key) {
      if (key === 'length') return text.length;
      if (typeof key === 'string' && /^\d+$/.test(key)) {
        charge('steps', 1);
        return text[Number(key)];
      }
      const method = methods[key];
      if (method) return method;
      if (key === Symbol.toPrimitive || key === 'toString' || key === 'valueOf') return whole;
      // Any other string method works on the whole text.
      const other = Reflect.get(target, key) as unknown;
      return typeof other === 'function' ? (...args: unknown[]) => (other as (...a: unknown[]) => unknown).apply(whole(), args) : other;
    },
  });
  return { text: proxy as unknown as string, counts };
}
