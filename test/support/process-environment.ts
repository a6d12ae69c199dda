import { readFileSync } from 'node:fs';
import { ALLOCATOR_ENV } from '../../src/ops/allocator-env.ts';

/** A running process's environment as it was when the process started (Linux: /proc/<pid>/environ). */
export const environmentOf = (pid: number): Record<string, string> =>
  Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );

/** `env` without glibc's allocator settings: to see that the process under test sets them itself. */
export const withoutAllocatorSettings = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(env).filter(([name]) => !(name in ALLOCATOR_ENV)));
