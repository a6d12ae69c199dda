import { randomFillSync } from 'node:crypto';

/** Refilled from the CSPRNG when it runs out, as Node's own randomUUID() does. */
const pool = Buffer.alloc(4096);
let offset = pool.length;

/**
 * `bytes` random bytes as hex, for public identifiers (responses, their items,
 * conversations, messages, runs), served from a pooled buffer: a randomBytes() call per
 * id cost 2–3 µs (an OpenSSL call and a Buffer each), and a stored agent turn makes five or
 * six of them. Not for secrets (tokens, salts, IVs): the pool holds bytes before they are used.
 */
export function randomHex(bytes: number): string {
  if (bytes > pool.length) throw new RangeError(`randomHex serves at most ${pool.length} bytes`);
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}
