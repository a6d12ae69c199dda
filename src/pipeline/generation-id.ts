import { randomBytes } from 'node:crypto';

/**
 * `gen-…`: the id of one model call in the usage log, returned as the response id.
 * A random per-process prefix plus a counter: unique across processes without a
 * random draw per call (ids are looked up only together with the caller's key, so
 * they need not be unguessable).
 */
const processPrefix = randomBytes(9).toString('base64url');
let counter = 0;

export const newGenerationId = (): string => `gen-${processPrefix}${(counter++).toString(36).padStart(6, '0')}`;
