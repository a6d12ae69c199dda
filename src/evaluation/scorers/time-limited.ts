import { runInNewContext } from 'node:vm';

/** How long one pattern or schema check may run over one answer: far above an honest check, even on a busy machine. */
export const CHECK_TIME_LIMIT_MS = 1_000;
/** Compiling a schema (Ajv writes and compiles code for it) is slower, and slowest the first time. */
export const COMPILE_TIME_LIMIT_MS = 10_000;

export const TIMED_OUT = Symbol('timed out');

/**
 * Runs a synchronous check with a time limit. Patterns and JSON schemas are tenant input: a
 * pattern that backtracks without end would hold the whole server, and V8 interrupts a
 * running regular expression when a script's timeout fires, so the check runs inside one.
 */
export function withinTimeLimit<T>(work: () => T, limitMs = CHECK_TIME_LIMIT_MS): T | typeof TIMED_OUT {
  try {
    return runInNewContext('work()', { work }, { timeout: limitMs }) as T;
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return TIMED_OUT;
    throw error;
  }
}
