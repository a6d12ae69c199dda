import type { FastifyInstance, HTTPMethods } from 'fastify';

export type RouteKey = `${string} ${string}`;

/** One method of one registered route, as fastify knows it (`GET /console/api/agents/:id`). */
export type RegisteredRoute = { method: string; url: string; key: RouteKey };

const BRANCH = /^((?:│ {3}| {4})*)(?:├── |└── )(.*)$/;
const LEAF = /^(.*?) \(([A-Z, ]+)\)$/;

/**
 * Every route of the app, read from its router tree (`printRoutes` with common prefixes,
 * where a node's full path is its ancestors' labels joined), each one confirmed with
 * `hasRoute` so a misread tree fails here instead of silently dropping a route. HEAD is
 * left out: fastify adds it beside every GET and answers it with the GET's handler.
 */
export function registeredRoutes(app: FastifyInstance): RegisteredRoute[] {
  const stack: string[] = [];
  const routes: RegisteredRoute[] = [];
  for (const line of app.printRoutes().split('\n')) {
    const branch = BRANCH.exec(line);
    if (!branch) continue;
    const depth = (branch[1] ?? '').length / 4;
    const label = branch[2] ?? '';
    const leaf = LEAF.exec(label);
    // A parametric node shared by several names prints them joined by '|': the first is as good as any.
    const segment = (leaf ? (leaf[1] ?? '') : label).split('|')[0] ?? '';
    stack.length = depth;
    stack.push(segment);
    if (!leaf) continue;
    const url = stack.join('');
    for (const method of (leaf[2] ?? '').split(', ')) {
      if (method === 'HEAD') continue;
      if (!app.hasRoute({ method: method as HTTPMethods, url })) throw new Error(`route tree misread: ${method} ${url} is not a registered route`);
      routes.push({ method, url, key: `${method} ${url}` });
    }
  }
  if (routes.length === 0) throw new Error('no routes read from the router tree');
  return routes;
}
