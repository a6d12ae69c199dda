import type { Role } from '../../../src/console/contract/session.ts';
import type { KeyKind } from '../../../src/keys/key-format.ts';
import type { RouteKey } from './tenant-route-inventory.ts';
import type { Tenant } from './tenant-fixtures.ts';

/** Who a route serves. Every registered route must be given one (route-table.ts). */
export type Access =
  | { kind: 'public' }
  /** The operator's, not a tenant's: `/metrics` (loopback or JUNCTION_METRICS_TOKEN). */
  | { kind: 'operator' }
  /** Console routes for the server's operators (owners of the default account): no tenant of the matrix is one. */
  | { kind: 'console-operator' }
  | { kind: 'key'; kinds: readonly KeyKind[] }
  /** `/agents/v1`: an agent key, or a console session of any role (the playground). */
  | { kind: 'agents' }
  | { kind: 'session'; role: Role };

export type RequestSpec = { url: string; payload?: unknown; headers?: Record<string, string> };

/**
 * A request naming one of the other account's objects. `denied`: never a 2xx. `scanned`:
 * may succeed (a filter, a search, an id both accounts use), but must show nothing of the
 * other account. `own-namespace`: the name is free in the caller's own account, so
 * creating it there is fine; sent last, and the other account's object must be intact after.
 */
export type Probe = RequestSpec & { object: string; expect: 'denied' | 'scanned' | 'own-namespace' };

export type RouteSpec = {
  access: Access;
  /** A request every caller may send without harming the fixtures (objects it names do not exist). */
  baseline?: RequestSpec;
  /** What an allowed caller gets for the baseline when it is not "anything but 401/403". */
  baselineStatus?: number;
  /** Why allowed callers do not send the baseline (denied callers still do). */
  deniedCallersOnly?: string;
  /** Why the answer cannot depend on the caller, so only the caller without credentials sends it. */
  anyCaller?: string;
  /** Why no request at all is sent here (the case is a test of its own). */
  coveredElsewhere?: string;
  probes?: (victim: Tenant, self: Tenant) => Probe[];
};

export type RouteTable = Record<RouteKey, RouteSpec>;

export type CallerKind = { credential: 'session'; role: Role } | { credential: 'key'; kind: KeyKind } | { credential: 'none' } | { credential: 'forged' };

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

/** Whether the route serves this caller at all (its objects aside). */
export function isAllowed(access: Access, caller: CallerKind): boolean {
  switch (access.kind) {
    case 'public':
    case 'operator':
      return true;
    case 'console-operator':
      return false;
    case 'key':
      return caller.credential === 'key' && access.kinds.includes(caller.kind);
    case 'agents':
      return (caller.credential === 'key' && caller.kind === 'agent') || caller.credential === 'session';
    case 'session':
      return caller.credential === 'session' && RANK[caller.role] >= RANK[access.role];
  }
}
