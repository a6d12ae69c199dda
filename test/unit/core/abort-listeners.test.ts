import { describe, expect, it } from 'vitest';
import { abortListenersOf, onAbort } from '../../../src/core/abort-listeners.ts';

/** onAbort: kept beside a signal whose owner fires them, a real listener on any other signal. */
describe('onAbort', () => {
  it("keeps listeners beside an owned signal, for its owner to fire; a removed one is not called", () => {
    const controller = new AbortController();
    const kept = abortListenersOf(controller.signal);
    const calls: string[] = [];
    onAbort(controller.signal, () => calls.push('first'));
    const remove = onAbort(controller.signal, () => calls.push('removed'));
    remove();
    expect(kept.size).toBe(1);
    controller.abort();
    // The owner fires them after aborting (see clientSignal); the signal itself does not.
    expect(calls).toEqual([]);
    for (const listener of kept) listener();
    expect(calls).toEqual(['first']);
    expect(abortListenersOf(controller.signal)).toBe(kept);
  });

  it('adds a real, once-only listener to any other signal, and removes it', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    onAbort(controller.signal, () => calls.push('called'));
    const remove = onAbort(controller.signal, () => calls.push('removed'));
    remove();
    controller.abort();
    controller.signal.dispatchEvent(new Event('abort'));
    expect(calls).toEqual(['called']);
  });
});
