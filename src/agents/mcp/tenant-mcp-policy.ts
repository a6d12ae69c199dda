import { type HostLookup, literalAddressRefusal, systemLookup } from '../../net/address-guard.ts';

/**
 * Where MCP servers written by a tenant (console agents, `{type: "mcp"}` request tools)
 * may be: on a host the operator listed in JUNCTION_MCP_ALLOWLIST (host names, or
 * host:port), and, unless JUNCTION_MCP_ALLOW_PRIVATE=true, at public addresses only
 * (checked again on every connection and redirect by the guarded fetch).
 */
export type TenantMcpPolicy = { allowlist: readonly string[]; allowPrivate: boolean; lookup: HostLookup };

/** JUNCTION_MCP_ALLOWLIST → host names (lower case). */
export const parseMcpAllowlist = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean);

export const tenantMcpPolicyFromEnv = (env: Readonly<Record<string, string | undefined>>): TenantMcpPolicy => ({
  allowlist: parseMcpAllowlist(env['JUNCTION_MCP_ALLOWLIST']),
  allowPrivate: env['JUNCTION_MCP_ALLOW_PRIVATE'] === 'true',
  lookup: systemLookup,
});

/** Why a tenant's MCP URL is refused before any DNS lookup, or undefined. */
export function tenantMcpUrlRefusal(url: URL, policy: Pick<TenantMcpPolicy, 'allowlist' | 'allowPrivate'>): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `MCP servers are reached over http(s), not ${url.protocol}`;
  if (url.username || url.password) return 'MCP server URLs with credentials are not allowed (use headers)';
  const host = url.host.toLowerCase();
  if (!policy.allowlist.includes(url.hostname.toLowerCase()) && !policy.allowlist.includes(host)) return `MCP server host '${host}' is not allowed on this server (JUNCTION_MCP_ALLOWLIST)`;
  return policy.allowPrivate ? undefined : literalAddressRefusal(url, 'MCP');
}
