import { JunctionError } from '../../core/errors.ts';
import type { Queryable } from '../../store/database.ts';
import type { FoundObjects } from './object-tap.ts';
import { type PassthroughOwner, recordObjects, unownedIds } from './passthrough-owners.ts';
import { bodyReferences, type PathTarget } from './referenced-ids.ts';

/** More ids than any provider call takes (a file batch takes 2,000 files at most). */
const MAX_REFERENCES = 10_000;

/**
 * Refuses a pass-through call that names, in its path or its JSON body, an object its
 * account does not own: 404 `not_found`, the same answer as for an id that does not
 * exist at all, so an account learns nothing of another's objects.
 */
export async function requireOwnedReferences(db: Queryable, accountId: string, target: PathTarget, json: Record<string, unknown> | undefined): Promise<void> {
  const references = bodyReferences(json);
  if (references.length > MAX_REFERENCES) throw new JunctionError('invalid_request', `The body names ${references.length} object ids; at most ${MAX_REFERENCES} are accepted in one call.`);
  const ids = [...(target.objectId === undefined ? [] : [target.objectId]), ...references.map((reference) => reference.id)];
  const unowned = await unownedIds(db, accountId, ids);
  const first = unowned[0];
  if (first === undefined) return;
  const field = first === target.objectId ? undefined : references.find((reference) => reference.id === first)?.field;
  throw new JunctionError('not_found', `No such object: '${first}'.`, field === undefined ? {} : { param: field });
}

/** Records what an answer showed: the objects themselves (their latest state), then the ones they imply. */
export async function recordFound(db: Queryable, owner: PassthroughOwner, found: FoundObjects): Promise<void> {
  await recordObjects(db, owner, found.answered, true);
  await recordObjects(db, owner, found.implied, false);
}
