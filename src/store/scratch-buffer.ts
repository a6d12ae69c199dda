/**
 * A buffer kept for writes of varying size, so a write allocates nothing: it grows (at
 * least doubling) up to `maxKeptBytes`, and a write larger than that gets a buffer of its
 * own, so the one kept stays small after a rare large write. Its contents are the caller's
 * only until the next `atLeast`.
 */
export class ScratchBuffer {
  #bytes: Buffer;
  readonly #maxKeptBytes: number;

  constructor(initialBytes: number, maxKeptBytes: number) {
    this.#bytes = Buffer.allocUnsafeSlow(initialBytes);
    this.#maxKeptBytes = maxKeptBytes;
  }

  /** A buffer of at least `size` bytes: the kept one, or one of its own past the limit. */
  atLeast(size: number): Buffer {
    if (size <= this.#bytes.byteLength) return this.#bytes;
    if (size > this.#maxKeptBytes) return Buffer.allocUnsafeSlow(size);
    this.#bytes = Buffer.allocUnsafeSlow(Math.min(this.#maxKeptBytes, Math.max(size, 2 * this.#bytes.byteLength)));
    return this.#bytes;
  }
}
