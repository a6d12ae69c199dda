import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { JunctionError } from '../../core/errors.ts';

const VERSION = 'jc1';

/**
 * Seals a compaction's summary into the item's `encrypted_content` (AES-256-GCM, key
 * derived from JUNCTION_KEY_SECRET), bound to the account that made it: the client
 * carries it back as is and can neither read nor alter it, and another account's item
 * does not open. The summary itself came from the agent's model (compact-response.ts).
 */
export class CompactionSeal {
  readonly #key: Buffer;

  constructor(secret: string) {
    this.#key = Buffer.from(hkdfSync('sha256', secret, 'junction', 'responses compaction v1', 32));
  }

  seal(accountId: string, summary: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(accountId));
    const sealed = Buffer.concat([cipher.update(summary, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
  }

  /** The summary, or a 400 naming `param` when the content is not one this server sealed for this account. */
  open(accountId: string, encrypted: string, param: string): string {
    const [version, payload] = encrypted.split('.');
    const bytes = Buffer.from(payload ?? '', 'base64url');
    if (version !== VERSION || bytes.length < 29) throw notOurs(param);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, 12));
      decipher.setAAD(Buffer.from(accountId));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw notOurs(param);
    }
  }
}

const notOurs = (param: string) => new JunctionError('invalid_request', 'This compaction item was not made by this server for this account (POST /agents/v1/responses/compact makes them).', { param });
