import type { Database, LOST_NOTIFICATIONS } from '../store/database.ts';
import { ChangeSync, changePayload } from '../store/change-sync.ts';
import type { ProcessRegistration } from '../store/process-registry.ts';

export const KEY_CHANGES_CHANNEL = 'junction_key_changes';
const KEY_ACKS_CHANNEL = 'junction_key_change_acks';

/** NOTIFY payload of a key change: which key, and which change (so acks can be matched). */
export const keyChangePayload = (lookupId: string, changeId: string): string => changePayload(lookupId, changeId);

/**
 * "A disabled, deleted or expired key stops working on the very next request, on every
 * process": key changes through ChangeSync's announce-and-acknowledge handshake.
 */
export class KeyChangeSync extends ChangeSync {
  constructor(db: Database, registration: ProcessRegistration | undefined, onChange: (lookupId: string | typeof LOST_NOTIFICATIONS) => void) {
    super(db, { changes: KEY_CHANGES_CHANNEL, acks: KEY_ACKS_CHANNEL }, registration, onChange);
  }
}
