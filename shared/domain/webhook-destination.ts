/**
 * Where a webhook may be sent (SSRF guard). Only `http:` and `https:` URLs without credentials;
 * and no address in a private, loopback, link-local or otherwise reserved range unless the
 * operator allows its CIDR (`WEBHOOK_ALLOWED_CIDRS`). Addresses are checked at registration and
 * again for every connection a delivery opens (shared/net/webhook-client.ts), so a host name that
 * later resolves elsewhere (DNS rebinding) is refused too.
 */
import { BlockList, isIP } from 'node:net';

/** Ranges no webhook reaches by default, with why. IPv4-mapped IPv6 addresses match the IPv4 rules. */
const RESERVED: [cidr: string, why: string][] = [
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared (carrier-grade NAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard'],
  ['2001:db8::/32', 'documentation'],
  ['fc00::/7', 'private (unique local)'],
  ['fe80::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
];

const familyOf = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

function blockListOf(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', prefix = ''] = cidr.split('/');
    list.addSubnet(address, Number(prefix), familyOf(address));
  }
  return list;
}

const reserved = RESERVED.map(([cidr, why]) => ({ why, list: blockListOf([cidr]) }));

/** Which destination addresses deliveries may connect to. */
export class DestinationPolicy {
  private readonly allowed: BlockList;

  /** @param allowedCidrs - reserved ranges the operator opens anyway (`WEBHOOK_ALLOWED_CIDRS`). */
  constructor(allowedCidrs: readonly string[]) {
    this.allowed = blockListOf(allowedCidrs);
  }

  /** Null when `address` (an IP literal) may be reached, else why not. */
  refusal(address: string): string | null {
    const family = familyOf(address);
    if (isIP(address) === 0) return `${address} is not an IP address`;
    if (this.allowed.check(address, family)) return null;
    const hit = reserved.find((r) => r.list.check(address, family));
    return hit ? `${address} is a ${hit.why} address` : null;
  }
}

/** An accepted webhook URL, or why it is refused (the address check comes on top). */
export function parseWebhookUrl(raw: string): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url must be an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'url must use http or https' };
  if (url.username || url.password) return { ok: false, reason: 'url must not contain credentials' };
  if (url.hash) return { ok: false, reason: 'url must not contain a fragment' };
  if (!url.hostname) return { ok: false, reason: 'url must name a host' };
  return { ok: true, url };
}

/** The host of a URL as an IP literal (brackets of IPv6 removed), or null for a name. */
export function literalAddressOf(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) ? host : null;
}
