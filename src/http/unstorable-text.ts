import { JunctionError } from '../core/errors.ts';
import { type UnstorableReason, unstorableReason } from '../core/storable-text.ts';

const DESCRIPTION: Record<UnstorableReason, string> = {
  nul: 'a NUL character (U+0000)',
  lone_surrogate: 'text that is not valid Unicode (a lone UTF-16 surrogate)',
};

export type UnstorableFinding = { path: string[]; reason: UnstorableReason };

/** A value still to look at, with the way back to the root (paths are built only for a finding). */
type Pending = { value: unknown; key: string; parent: Pending | undefined };

/**
 * The first string that cannot be stored, with its path (an object's keys are looked at
 * before its values). Iterative, so a deeply nested value cannot overflow the stack.
 */
export function findUnstorableText(root: unknown, options: { allowNul: boolean }): UnstorableFinding | undefined {
  const stack: Pending[] = [{ value: root, key: '', parent: undefined }];
  for (let pending = stack.pop(); pending; pending = stack.pop()) {
    const { value } = pending;
    if (typeof value === 'string') {
      const reason = unstorableReason(value, options.allowNul);
      if (reason) return { path: pathOf(pending), reason };
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1) stack.push({ value: value[index], key: String(index), parent: pending });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      for (const key of keys) {
        const reason = unstorableReason(key, options.allowNul);
        if (reason) return { path: [...pathOf(pending), printableKey(key)], reason };
      }
      for (let index = keys.length - 1; index >= 0; index -= 1) {
        const key = keys[index] as string;
        stack.push({ value: (value as Record<string, unknown>)[key], key, parent: pending });
      }
    }
  }
  return undefined;
}

function pathOf(pending: Pending): string[] {
  const path: string[] = [];
  for (let current: Pending | undefined = pending; current?.parent; current = current.parent) path.push(current.key);
  return path.reverse();
}

/** A key shown in an error message must itself be storable and printable. */
const printableKey = (key: string): string => key.toWellFormed().replaceAll('\u0000', '\\u0000');

/** The 400 for unstorable text in `where` ('request body', 'query parameter', …), naming the field. */
export function unstorableTextError(where: string, path: string[], reason: UnstorableReason): JunctionError {
  const param = path.length > 0 ? path.map(printableKey).join('.') : null;
  const suffix = reason === 'nul' ? ', which cannot be stored' : '';
  return new JunctionError('invalid_request', `The ${where} holds ${DESCRIPTION[reason]}${param ? ` at '${param}'` : ''}${suffix}.`, { param });
}

/** The 400 for the first unstorable text in a parsed JSON value from `where`, if there is one. */
export function unstorableValueError(value: unknown, where: string, options: { allowNul: boolean } = { allowNul: false }): JunctionError | undefined {
  const found = findUnstorableText(value, options);
  return found && unstorableTextError(where, found.path, found.reason);
}
