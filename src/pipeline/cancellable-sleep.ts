import { onAbort, type CancelSignal } from '../core/cancel-signal.ts';

/** Waits `ms`, or rejects with the signal's reason as soon as the caller goes away. */
export const sleep = (ms: number, signal: CancelSignal) =>
  new Promise<void>((done, fail) => {
    if (signal.aborted) return fail(signal.reason);
    const stopWaiting = onAbort(signal, () => {
      clearTimeout(timer);
      fail(signal.reason);
    });
    const timer = setTimeout(() => {
      stopWaiting();
      done();
    }, ms);
  });
