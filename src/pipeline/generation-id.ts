import { randomBytes } from 'node:crypto';

/** `gen-…`: the id of one model call in the usage log, returned to the caller as the response id. */
export const newGenerationId = (): string => `gen-${randomBytes(12).toString('base64url')}`;
