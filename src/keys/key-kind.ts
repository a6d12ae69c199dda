import { z } from 'zod';

/** The three kinds of API key (only zod imported: the console's browser bundle reads this too). */
export const KeyKindSchema = z.enum(['model', 'provisioning', 'agent']);
export type KeyKind = z.infer<typeof KeyKindSchema>;

/** The kinds a provisioning key creates and manages through `/v1/keys` (never another provisioning key). */
export const ManagedKeyKindSchema = KeyKindSchema.exclude(['provisioning']);
export type ManagedKeyKind = z.infer<typeof ManagedKeyKindSchema>;
