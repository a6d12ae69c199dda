import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Keys are stored as HMAC-SHA256 of their secret part. The secret carries 256 random
 * bits, so the hash cannot be reversed by search; the HMAC key (JUNCTION_KEY_SECRET,
 * kept out of the database) additionally makes a leaked table useless on its own.
 */
export class KeyHasher {
  readonly #hmacKey: string;

  constructor(hmacKey: string) {
    this.#hmacKey = hmacKey;
  }

  hash(secret: string): Buffer {
    return createHmac('sha256', this.#hmacKey).update(secret).digest();
  }

  /** Constant-time comparison: no timing signal about how much of a guess matched. */
  matches(secret: string, storedHash: Uint8Array): boolean {
    const candidate = this.hash(secret);
    return storedHash.length === candidate.length && timingSafeEqual(candidate, storedHash);
  }
}
