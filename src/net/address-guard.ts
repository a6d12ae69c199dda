import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent } from 'undici';

/**
 * The one rule for outbound calls that tenant input can aim (http_fetch, tenant MCP
 * servers): every address the host resolves to must be public, and the connection
 * goes to the very address that was checked. "Public" is an allowlist: only
 * ipaddr.js's `unicast` range, so loopback, private, link-local, CGNAT, multicast,
 * unspecified, documentation and the IPv6 forms that embed an IPv4 address (mapped,
 * NAT64, 6to4, Teredo) are all refused without listing each. Hex, decimal and octal
 * IPv4 spellings (`0x7f000001`) never reach here: the WHATWG URL parser normalises them.
 */

/** A destination the policy refuses: nothing was sent. */
export class RefusedDestinationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedDestinationError';
  }
}

export type ResolvedAddress = { address: string; family: 4 | 6 };
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;
export type AddressPolicy = { allowPrivate: boolean; lookup: HostLookup };

export const systemLookup: HostLookup = async (hostname) => {
  const addresses = await dnsLookup(hostname, { all: true, verbatim: true });
  return addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

/** URL.hostname keeps the brackets of an IPv6 literal. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** Why a URL naming an address literal is refused (names are only known once resolved). */
export function literalAddressRefusal(url: URL, who: string): string | undefined {
  const hostname = bareHostname(url);
  return isIP(hostname) !== 0 && !isPublicAddress(hostname) ? `${hostname} is a private or reserved address, which ${who} refuses` : undefined;
}

/**
 * The address to connect to for this URL's host. Every resolved address must pass,
 * not just the first: a name that also resolves to 127.0.0.1 is a rebinding setup.
 */
export async function resolveTarget(url: URL, policy: AddressPolicy, who: string): Promise<ResolvedAddress> {
  const hostname = bareHostname(url);
  const family = isIP(hostname);
  const addresses: ResolvedAddress[] = family === 0 ? await policy.lookup(hostname) : [{ address: hostname, family: family === 6 ? 6 : 4 }];
  const first = addresses[0];
  if (!first) throw new Error(`${hostname} did not resolve to any address`);
  if (!policy.allowPrivate) {
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused) throw new RefusedDestinationError(`${hostname} resolves to ${refused.address}, a private or reserved address, which ${who} refuses`);
  }
  return first;
}

/** A dispatcher whose every connection goes to `target`, whatever DNS answers later; TLS still verifies the real host name. */
export function pinnedAgent(target: ResolvedAddress): Agent {
  // Node asks with { all: true } when autoSelectFamily is on, otherwise for one address.
  const lookup = ((_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as LookupFunction;
  return new Agent({ connect: { lookup }, connections: 1, pipelining: 0 });
}
