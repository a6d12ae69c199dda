import type { LightMyRequestResponse } from 'fastify';
import { type Access, type CallerKind, isAllowed, type Probe, type RequestSpec, type RouteSpec, type RouteTable } from './tenant-route-access.ts';
import type { RegisteredRoute, RouteKey } from './tenant-route-inventory.ts';
import { type Caller, inParallel } from './tenant-callers.ts';
import { leakedMarkers, type Tenant, type TenantWorld } from './tenant-fixtures.ts';

export type Finding = { route: RouteKey; caller: string; object: string; status: number; problem: string };

export const formatFindings = (findings: Finding[]): string =>
  findings.map((finding) => `${finding.route} | ${finding.caller} | ${finding.object} | ${finding.status} | ${finding.problem}`).join('\n');

const denialStatus = (status: number) => status === 401 || status === 403;
const payloadText = (payload: unknown): string => (Buffer.isBuffer(payload) ? payload.toString('utf8') : JSON.stringify(payload));

const callerLabel = (caller: CallerKind) => {
  if (caller.credential === 'session') return `${caller.role} session`;
  return caller.credential === 'key' ? `${caller.kind} key` : caller.credential;
};
const accessLabel = (access: Access) => [access.kind, 'role' in access ? access.role : '', 'kinds' in access ? access.kinds.join('/') : ''].filter(Boolean).join(' ');

/** A baseline names only missing objects: a caller the route serves gets anything but 401/403 (or its set status), any other 401/403. */
function judgeBaseline(spec: RouteSpec, caller: CallerKind, allowed: boolean, response: LightMyRequestResponse): string | undefined {
  if (!allowed) return denialStatus(response.statusCode) ? undefined : `served a ${callerLabel(caller)} (the route is ${accessLabel(spec.access)})`;
  if (spec.baselineStatus !== undefined) return response.statusCode === spec.baselineStatus ? undefined : `expected ${spec.baselineStatus}`;
  return denialStatus(response.statusCode) ? `refused a caller the route serves: ${response.body.slice(0, 160)}` : undefined;
}

type Task = { route: RegisteredRoute; caller: Caller; object: string; request: RequestSpec; judge(response: LightMyRequestResponse): string | undefined; victims: Tenant[] };

/**
 * One phase of the matrix: every route × every caller, first its harmless baseline
 * (does the route serve this caller at all?), then every request naming one of the other
 * account's objects; each answer is judged, and scanned for the other account's markers
 * and the server's secrets.
 */
export async function runMatrix(
  world: TenantWorld,
  routes: RegisteredRoute[],
  table: RouteTable,
  callers: Caller[],
  phase: 'main' | 'own-namespace',
  serverSecrets: string[],
): Promise<{ findings: Finding[]; requests: number }> {
  const baselines: Task[] = [];
  const probes: Task[] = [];
  /** Each caller's answer to a route's baseline, which names only missing objects. */
  const missing = new Map<string, number>();
  for (const route of routes) {
    const spec = table[route.key];
    if (!spec || spec.coveredElsewhere) continue;
    for (const caller of callers) {
      if (spec.anyCaller && caller.kind.credential !== 'none') continue;
      const allowed = isAllowed(spec.access, caller.kind);
      const victims = caller.tenant ? [otherOf(world, caller.tenant)] : [world.a, world.b];
      if (phase === 'main' && spec.baseline && !(allowed && spec.deniedCallersOnly)) {
        baselines.push({
          route,
          caller,
          object: 'none (baseline)',
          request: spec.baseline,
          victims,
          judge: (response) => {
            missing.set(`${route.key} ${caller.name}`, response.statusCode);
            return judgeBaseline(spec, caller.kind, allowed, response);
          },
        });
      }
      const victim = caller.tenant ? otherOf(world, caller.tenant) : world.b;
      const self = caller.tenant ?? world.a;
      for (const probe of spec.probes?.(victim, self) ?? []) {
        if ((probe.expect === 'own-namespace') !== (phase === 'own-namespace')) continue;
        probes.push({ route, caller, object: `${victim.label}'s ${probe.object}`, request: probe, victims, judge: judgeProbe(probe, () => missing.get(`${route.key} ${caller.name}`)) });
      }
    }
  }
  const run = (tasks: Task[]) =>
    inParallel(
      tasks.map((task) => async () => {
        const response = await task.caller.send(task.route.method, task.request);
        return findingsOf(task, response, serverSecrets);
      }),
      6,
    );
  // Baselines first: a refused probe must look like the same caller's request for a missing object.
  const findings = [...(await run(baselines)), ...(await run(probes))];
  return { findings: findings.flat(), requests: baselines.length + probes.length };
}

/** A refused probe answers as the baseline did: otherwise the difference tells that the object exists. */
function judgeProbe(probe: Probe, missingStatus: () => number | undefined): (response: LightMyRequestResponse) => string | undefined {
  return (response) => {
    if (probe.expect !== 'denied') return undefined;
    if (response.statusCode < 300) return 'a 2xx on the other account’s object';
    const status = missingStatus();
    if (status !== undefined && status >= 400 && status !== response.statusCode)
      return `answers ${response.statusCode} where a missing object gets ${status}, so it tells the object exists: ${response.body.slice(0, 160)}`;
    return undefined;
  };
}

function findingsOf(task: Task, response: LightMyRequestResponse, serverSecrets: string[]): Finding[] {
  const base = { route: task.route.key, caller: task.caller.name, object: task.object, status: response.statusCode };
  const findings: Finding[] = [];
  if (response.statusCode >= 500 && response.statusCode !== 502 && response.statusCode !== 503) findings.push({ ...base, problem: `server error: ${response.body.slice(0, 200)}` });
  const problem = task.judge(response);
  if (problem) findings.push({ ...base, problem });
  const { payload } = task.request;
  const sent = `${task.request.url} ${payload === undefined ? '' : payloadText(payload)}`;
  const body = `${response.body} ${JSON.stringify(response.headers)}`;
  for (const victim of task.victims) {
    const leaked = leakedMarkers(body, victim, sent);
    if (leaked.length > 0) findings.push({ ...base, problem: `shows ${victim.label}'s ${leaked.join(', ')}` });
  }
  const secrets = serverSecrets.filter((secret) => body.includes(secret));
  if (secrets.length > 0) findings.push({ ...base, problem: `shows a server secret: ${secrets.join(', ')}` });
  return findings;
}

export const otherOf = (world: TenantWorld, tenant: Tenant): Tenant => (tenant === world.a ? world.b : world.a);
