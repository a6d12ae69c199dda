/**
 * An upstream attempt run under its time limits (routing/attempt-limits.ts). A call with
 * none keeps the caller's signal and makes no timer; one with limits gets an AttemptSignal
 * whose deadline fails the attempt with a retryable timeout, so the retry loop moves on as
 * it does for any failure before the first byte.
 */
import type { CatalogModel } from '../catalog/types.ts';
import type { ModelRequest, ModelStreamEvent } from '../core/model-types.ts';
import type { ProviderAdapter } from '../providers/adapter.ts';
import { AttemptSignal } from '../providers/http/attempt-signal.ts';
import { attemptLimits } from '../routing/attempt-limits.ts';
import type { CallContext } from './call-context.ts';

/** A stream whose first event came in time; `unlink` once it is over ends its attempt's tie to the caller. */
export type OpenedStream = { iterator: AsyncIterator<ModelStreamEvent>; first: IteratorResult<ModelStreamEvent>; unlink?: () => void };

/** Opens a chat stream and waits for its first event: the last moment a retry is safe. */
export async function openStream(context: CallContext, adapter: ProviderAdapter, model: CatalogModel, request: ModelRequest): Promise<OpenedStream> {
  const limits = attemptLimits(model, adapter.config, context.timeoutMs);
  if (!limits) {
    const iterator = adapter.streamChat(request, { signal: context.signal })[Symbol.asyncIterator]();
    return { iterator, first: await iterator.next() };
  }
  const signal = new AttemptSignal(context.signal, limits);
  try {
    const iterator = adapter.streamChat(request, { signal })[Symbol.asyncIterator]();
    const first = await signal.within(iterator.next());
    signal.answered();
    return { iterator, first, unlink: () => signal.release() };
  } catch (error) {
    signal.release();
    throw error;
  }
}

/**
 * A one-answer attempt (a chat answer, an embedding, an image…) under its limits. Its
 * signal stays tied to the caller's after the answer: a media answer may still stream its
 * body (speech), which the caller's leaving must stop.
 */
export async function answerInTime<T>(context: CallContext, adapter: ProviderAdapter, model: CatalogModel, run: (signal: CallContext['signal']) => Promise<T>): Promise<T> {
  const limits = attemptLimits(model, adapter.config, context.timeoutMs);
  if (!limits) return run(context.signal);
  const signal = new AttemptSignal(context.signal, limits);
  try {
    const value = await signal.within(run(signal));
    signal.answered();
    return value;
  } catch (error) {
    signal.release();
    throw error;
  }
}
