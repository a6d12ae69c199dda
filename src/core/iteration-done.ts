/**
 * The result a finished iterator returns, shared by the plain async iterators of the
 * stream path (they replaced async generators there): one frozen object, not one per call.
 */
export const ITERATION_DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
