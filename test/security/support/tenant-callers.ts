import type { LightMyRequestResponse } from 'fastify';
import { bearer } from '../../support/test-app.ts';
import type { CallerKind, RequestSpec } from './tenant-route-access.ts';
import { KEY_KINDS, ROLES, type Tenant, type TenantWorld } from './tenant-fixtures.ts';

/** Someone sending requests: a console session, a key, nobody, or a key that is almost right. */
export type Caller = {
  name: string;
  kind: CallerKind;
  /** The account the caller acts in (undefined: none or forged). */
  tenant: Tenant | undefined;
  send(method: string, request: RequestSpec): Promise<LightMyRequestResponse>;
};

/** The same key with its last character changed: its lookup id finds a row, its secret is wrong. */
export const almostValid = (key: string): string => key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');

/** A's and B's owner, admin and member sessions, their keys of every kind, no credentials, and a forged key. */
export function callersOf(world: TenantWorld): Caller[] {
  const { app } = world.gateway;
  const withKey = (key: string | undefined) => (method: string, request: RequestSpec) =>
    app.inject({
      method: method as 'GET',
      url: request.url,
      headers: { ...(key !== undefined && bearer(key)), ...request.headers },
      ...(request.payload !== undefined && { payload: request.payload as object }),
    });
  const callers: Caller[] = [];
  for (const tenant of [world.a, world.b]) {
    for (const role of ROLES) {
      const { session } = tenant.users[role];
      callers.push({
        name: `${tenant.label} ${role} session`,
        kind: { credential: 'session', role },
        tenant,
        send: (method, request) => session.request(method, request.url, request.payload, request.headers),
      });
    }
    for (const kind of KEY_KINDS) callers.push({ name: `${tenant.label} ${kind} key`, kind: { credential: 'key', kind }, tenant, send: withKey(tenant.keys[kind].plain) });
  }
  callers.push({ name: 'no credentials', kind: { credential: 'none' }, tenant: undefined, send: withKey(undefined) });
  callers.push({ name: 'forged model key', kind: { credential: 'forged' }, tenant: undefined, send: withKey(almostValid(world.a.keys.model.plain)) });
  return callers;
}

/** Runs `tasks` with at most `limit` under way at once. */
export async function inParallel<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
