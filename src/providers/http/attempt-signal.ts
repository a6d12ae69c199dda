/**
 * The signal of one upstream attempt that has time limits of its own (a model's, a
 * deployment's or a request's timeout). It aborts when the caller's signal does, or with a
 * timeout UpstreamError once the answer is late; and it carries the limits to the HTTP
 * client (upstream-client.ts reads them for its headers and body timeouts), so no
 * adapter has to pass them on.
 */
import { ClientDisconnect, onAbort, type CancelSignal } from '../../core/cancel-signal.ts';
import { UpstreamError } from '../upstream-error.ts';

export type AttemptLimits = {
  /** How long the attempt may take to answer: its headers, and for a stream its first event. */
  firstByteMs: number;
  /** The longest the upstream may stay silent once its answer started; undici's default when unset. */
  streamIdleMs: number | undefined;
};

export class AttemptSignal extends ClientDisconnect {
  readonly firstByteMs: number;
  readonly streamIdleMs: number | undefined;
  readonly #unlink: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(parent: CancelSignal, limits: AttemptLimits) {
    super();
    this.firstByteMs = limits.firstByteMs;
    this.streamIdleMs = limits.streamIdleMs;
    this.#unlink = onAbort(parent, () => this.#stop(parent.reason));
    if (parent.aborted) {
      this.abort(parent.reason);
      return;
    }
    this.#timer = setTimeout(() => this.#stop(attemptTimeout(limits.firstByteMs)), limits.firstByteMs);
  }

  /**
   * `work` until it settles, or until this signal aborts (the deadline passed, the caller
   * left): an adapter that is slow to notice the abort cannot hold the attempt past its limit.
   */
  within<T>(work: Promise<T>): Promise<T> {
    if (this.aborted) {
      work.catch(() => undefined);
      return Promise.reject(this.reason);
    }
    return new Promise<T>((resolve, reject) => {
      const stop = this.onAbort(() => reject(this.reason));
      work.then(
        (value) => {
          stop();
          resolve(value);
        },
        (error: unknown) => {
          stop();
          reject(error);
        },
      );
    });
  }

  /** The answer started in time: from now on only the idle limit and the caller's leaving end it. */
  answered(): void {
    clearTimeout(this.#timer);
  }

  /** The call is over: no timer, and the caller's signal no longer holds this one. */
  release(): void {
    clearTimeout(this.#timer);
    this.#unlink();
  }

  #stop(reason: unknown): void {
    clearTimeout(this.#timer);
    this.abort(reason);
  }
}

/** The error of an attempt that did not answer in time: retryable, and a 504 once nothing is left to try. */
export const attemptTimeout = (ms: number): UpstreamError => new UpstreamError(`no answer within ${ms} ms`, { status: 0, network: 'timeout', upstreamMessage: `no answer within ${ms} ms` });
