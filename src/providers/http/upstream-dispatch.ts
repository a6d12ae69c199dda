import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { onAbort, type CancelSignal } from '../../core/cancel-signal.ts';

type DispatchController = Dispatcher.DispatchController;

/** Past this many unread bytes the socket is paused until the reader catches up (backpressure). */
const HIGH_WATER_BYTES = 64 * 1024;

export type DispatchedResponse = { statusCode: number; headers: IncomingHttpHeaders; body: UpstreamBody };

/**
 * One upstream request on undici's `dispatch`, below `undici.request`: the response body
 * arrives as plain Buffer chunks in a queue, not through a Node Readable, an
 * AsyncResource and an abort listener per request: under half the client CPU per call.
 *
 * Resolves at the response headers; rejects with undici's own errors (connect and
 * header timeouts, refused connections) or, when `signal` aborts first, its reason.
 * Errors after the headers reach the body's reader.
 */
export function dispatchUpstream(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: CancelSignal): Promise<DispatchedResponse> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    let body: UpstreamBody | undefined;
    const tie = tieToSignal(signal);
    const settled = tie.release;
    dispatcher.dispatch(options, {
      onRequestStart: tie.onRequestStart,
      onResponseStart(started, statusCode, headers) {
        if (statusCode < 200) return; // 1xx informational: the real answer follows
        body = new UpstreamBody(started, settled);
        resolve({ statusCode, headers, body });
      },
      onResponseData(_controller, chunk) {
        body?.push(chunk);
      },
      onResponseEnd() {
        settled();
        body?.end();
      },
      onResponseError(_controller, error) {
        settled();
        const reason = signal.aborted ? signal.reason : error;
        if (body) body.fail(reason);
        else reject(reason);
      },
    });
  });
}

/**
 * A request's tie to its caller's signal: the signal aborting aborts the request, from the
 * moment it starts (before it reached a socket there is no controller yet: onRequestStart
 * aborts it then). `release` once the request is over.
 */
function tieToSignal(signal: CancelSignal): { onRequestStart(started: DispatchController): void; release(): void } {
  let controller: DispatchController | undefined;
  const release = onAbort(signal, () => controller?.abort(signal.reason));
  return {
    release,
    onRequestStart(started) {
      controller = started;
      if (signal.aborted) started.abort(signal.reason);
    },
  };
}

export type WholeResponse = { statusCode: number; headers: IncomingHttpHeaders; text: string };

/** A failure after the response headers, while the body was arriving (the caller tells it from one before them). */
export class BodyBrokeError extends Error {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;

  constructor(cause: unknown, statusCode: number, headers: IncomingHttpHeaders) {
    super('upstream body broke off', { cause });
    this.statusCode = statusCode;
    this.headers = headers;
  }
}

/**
 * `dispatchUpstream` for an answer wanted whole (a JSON call): resolves once, at the
 * body's end, with its text. No body queue, no reader, no second promise for the text:
 * a JSON call's awaits, each a promise and a microtask turn, showed in the gateway's CPU
 * per request. Rejects as dispatchUpstream does before the headers, and with a
 * BodyBrokeError holding the cause after them.
 */
export function dispatchUpstreamText(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: CancelSignal): Promise<WholeResponse> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    const tie = tieToSignal(signal);
    const settled = tie.release;
    dispatcher.dispatch(options, {
      onRequestStart: tie.onRequestStart,
      onResponseStart(_controller, status, responseHeaders) {
        if (status < 200) return; // 1xx informational: the real answer follows
        statusCode = status;
        headers = responseHeaders;
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        settled();
        resolve({ statusCode, headers, text: chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8') });
      },
      onResponseError(_controller, error) {
        settled();
        if (signal.aborted) reject(signal.reason);
        else reject(statusCode === 0 ? error : new BodyBrokeError(error, statusCode, headers));
      },
    });
  });
}

/**
 * A response body read once, either whole (`text()`) or chunk by chunk (async
 * iteration). Chunks wait in a queue; the socket pauses while the queue holds more than
 * HIGH_WATER_BYTES. `destroy()` (or leaving an iteration early) aborts the request.
 */
export class UpstreamBody implements AsyncIterable<Uint8Array> {
  readonly #controller: DispatchController;
  readonly #onDone: () => void;
  #chunks: Buffer[] = [];
  #queuedBytes = 0;
  #ended = false;
  #error: unknown;
  #failed = false;
  /** The reader waiting for the next chunk, the end or an error. */
  #wake: (() => void) | undefined;

  constructor(controller: DispatchController, onDone: () => void) {
    this.#controller = controller;
    this.#onDone = onDone;
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#queuedBytes += chunk.length;
    if (this.#queuedBytes > HIGH_WATER_BYTES && !this.#controller.paused) this.#controller.pause();
    this.#notify();
  }

  end(): void {
    this.#ended = true;
    this.#notify();
  }

  fail(error: unknown): void {
    if (this.#ended || this.#failed) return;
    this.#failed = true;
    this.#error = error;
    this.#notify();
  }

  /** The whole body as UTF-8 text. */
  async text(): Promise<string> {
    while (!this.#ended) {
      if (this.#failed) throw this.#error;
      // The whole body is wanted: no reason to hold the socket back while it arrives.
      if (this.#controller.paused) this.#controller.resume();
      await this.#nextSignal();
    }
    if (this.#failed) throw this.#error;
    const chunks = this.#chunks;
    this.#chunks = [];
    this.#queuedBytes = 0;
    return chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
  }

  destroy(reason: Error = new Error('upstream body destroyed before its end')): void {
    this.#chunks = [];
    this.#queuedBytes = 0;
    if (!this.#ended && !this.#failed) {
      this.#onDone();
      this.#controller.abort(reason);
      this.fail(reason);
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return {
      next: async (): Promise<IteratorResult<Uint8Array>> => {
        for (;;) {
          const chunk = this.#chunks.shift();
          if (chunk !== undefined) {
            this.#queuedBytes -= chunk.length;
            if (this.#controller.paused && this.#queuedBytes <= HIGH_WATER_BYTES / 2) this.#controller.resume();
            return { value: chunk, done: false };
          }
          if (this.#failed) throw this.#error;
          if (this.#ended) return { value: undefined, done: true };
          await this.#nextSignal();
        }
      },
      return: async (): Promise<IteratorResult<Uint8Array>> => {
        this.destroy();
        return { value: undefined, done: true };
      },
    };
  }

  #nextSignal(): Promise<void> {
    return new Promise((wake) => {
      this.#wake = wake;
    });
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
