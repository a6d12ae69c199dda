import { describe, expect, it } from 'vitest';
import { ClientDisconnect, onAbort, toAbortSignal } from '../../../src/core/cancel-signal.ts';

describe('ClientDisconnect', () => {
  it('calls its listeners once, in order, after it is marked aborted; a removed one is not called', () => {
    const disconnect = new ClientDisconnect();
    const calls: string[] = [];
    onAbort(disconnect, () => calls.push(`first:${String(disconnect.aborted)}`));
    const remove = onAbort(disconnect, () => calls.push('removed'));
    onAbort(disconnect, () => calls.push('second'));
    remove();
    expect(disconnect.aborted).toBe(false);
    const reason = new Error('client disconnected');
    disconnect.abort(reason);
    disconnect.abort(new Error('again'));
    expect(calls).toEqual(['first:true', 'second']);
    expect(disconnect.reason).toBe(reason);
    // Too late to listen: never called.
    onAbort(disconnect, () => calls.push('late'));
    expect(calls).toEqual(['first:true', 'second']);
  });

  it('hands out one real AbortSignal that aborts with it, made before or after the abort', () => {
    const before = new ClientDisconnect();
    const signal = toAbortSignal(before);
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(toAbortSignal(before)).toBe(signal);
    let fired = 0;
    signal.addEventListener('abort', () => (fired += 1));
    const reason = new Error('gone');
    before.abort(reason);
    expect([signal.aborted, signal.reason, fired]).toEqual([true, reason, 1]);

    const after = new ClientDisconnect();
    after.abort(reason);
    expect([after.signal.aborted, after.signal.reason]).toEqual([true, reason]);
    // It works where only a real one does.
    expect(AbortSignal.any([after.signal]).aborted).toBe(true);
  });
});

describe('onAbort on an AbortSignal', () => {
  it('adds a real, once-only listener, and removes it', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    onAbort(controller.signal, () => calls.push('called'));
    const remove = onAbort(controller.signal, () => calls.push('removed'));
    remove();
    controller.abort();
    controller.signal.dispatchEvent(new Event('abort'));
    expect(calls).toEqual(['called']);
    expect(toAbortSignal(controller.signal)).toBe(controller.signal);
  });
});
