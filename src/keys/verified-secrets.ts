import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Remembers, per cached key record, that a secret already passed the HMAC check, as a
 * salted one-shot SHA-256 of it: the next request with the same key costs one digest
 * (about 1 µs) instead of an HMAC (a new Hmac object and key import per call: the
 * largest single cost of authentication in the gateway's profile). Only digests are
 * held, never the secret; the salt is random per process, so they mean nothing outside it.
 * Entries live exactly as long as the cached record (a WeakMap): when a key changes, its
 * record is dropped from the authenticator's cache and its digest with it.
 */
export class VerifiedSecrets<Record extends object> {
  readonly #salt = randomBytes(16).toString('base64');
  readonly #digests = new WeakMap<Record, Buffer>();

  /** True when `secret` is the one remembered for `record`, compared in constant time. */
  has(record: Record, secret: string): boolean {
    const remembered = this.#digests.get(record);
    return remembered !== undefined && timingSafeEqual(remembered, this.#digest(secret));
  }

  remember(record: Record, secret: string): void {
    this.#digests.set(record, this.#digest(secret));
  }

  #digest(secret: string): Buffer {
    return hash('sha256', this.#salt + secret, 'buffer');
  }
}
