/**
 * Where a webhook may be sent (SSRF guard). Only `http:` and `https:` URLs without credentials;
 * and no address in a private, loopback, link-local or otherwise reserved range unless the
 * operator allows its CIDR (`WEBHOOK_ALLOWED_CIDRS`). Addresses are checked at registration and
 * again for every connection a delivery opens (shared/net/webhook-client.ts), so a host name that
 * later resolves elsewhere (DNS rebinding) is refused too.
 */
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Ranges no webhook reaches by default, with why. An IPv6 address that embeds an IPv4 address
 * (see {@link embeddedIPv4}) is also judged by the embedded one.
 */
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
    if (isIP(address) === 0) return `${address} is not an IP address`;
    const own = this.rangeRefusal(address);
    if (own) return `${address} is a ${own} address`;
    for (const v4 of embeddedIPv4(address)) {
      const embedded = this.rangeRefusal(v4);
      if (embedded) return `${address} embeds ${v4}, a ${embedded} address`;
    }
    return null;
  }

  /** Why `address`'s range is refused (not allowed by the operator and reserved), or null. */
  private rangeRefusal(address: string): string | null {
    const family = familyOf(address);
    if (this.allowed.check(address, family)) return null;
    return reserved.find((r) => r.list.check(address, family))?.why ?? null;
  }
}

/** What to tell an operator whose webhook URL was refused for its address. */
export const ALLOW_RESERVED_HINT =
  'to send webhooks to a reserved range anyway (a receiver on this machine, a private network), add it to WEBHOOK_ALLOWED_CIDRS (e.g. 127.0.0.0/8)';

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * The IPv4 addresses an IPv6 address carries, in every form that can route to them: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`, RFC 6145), NAT64 (`64:ff9b::/96`, RFC
 * 6052), IPv4-compatible (`::a.b.c.d`, deprecated), 6to4 (`2002:AABB:CCDD::/48`) and Teredo
 * (`2001:0::/32`: its server, and its client stored inverted). Empty for an IPv4 address or any
 * other IPv6 address.
 */
export function embeddedIPv4(address: string): string[] {
  if (!ipaddr.IPv6.isValid(address)) return [];
  const v6 = ipaddr.IPv6.parse(address);
  const bytes = v6.toByteArray();
  const v4 = (at: number, invert = false) =>
    bytes
      .slice(at, at + 4)
      .map((b) => (invert ? b ^ 0xff : b))
      .join('.');
  switch (v6.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return [v4(12)];
    case '6to4':
      return [v4(2)];
    case 'teredo':
      return [v4(4), v4(12, true)];
    default:
      // `::` and `::1` are refused by their own ranges; every other `::a.b.c.d` is IPv4-compatible.
      return v6.match(IPV4_COMPATIBLE) ? [v4(12)] : [];
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
