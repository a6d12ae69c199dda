import type { FastifyInstance } from 'fastify';

export type RouteEntry = { method: string; path: string };

/**
 * Every route the app serves, read from fastify's own route tree, so a route added
 * later is fuzzed without anyone listing it. `printRoutes({ commonPrefix: false })`
 * draws one node per line; a node's path is its ancestors' segments joined.
 */
export function routeInventory(app: FastifyInstance): RouteEntry[] {
  const tree = app.printRoutes({ commonPrefix: false });
  const prefixes: string[] = [];
  const routes: RouteEntry[] = [];
  for (const line of tree.split('\n')) {
    const branch = line.search(/[├└]── /);
    if (branch === -1) continue;
    const depth = branch / 4;
    const match = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(branch + 4));
    if (!match) continue;
    const path = (prefixes[depth - 1] ?? '') + (match[1] ?? '');
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    for (const method of (match[2] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean))
      routes.push({ method, path });
  }
  return routes;
}
