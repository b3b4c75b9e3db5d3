import { endsInNumber, formatIp, formatIPv4, parseIp, type IpAddress } from './ip.js';

/**
 * What an address is, for deciding whether a webhook may be sent to it. Only `public` is a destination on
 * the internet; `private_network` ranges are what WEBHOOK_ALLOW_PRIVATE_NETWORKS=true opens for local
 * development; everything else is never a webhook receiver.
 */
export type AddressRange =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'unique_local'
  | 'site_local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved';

export interface AddressClass {
  /** Canonical text of the address (dotted quad, or RFC 5952 IPv6). */
  address: string;
  family: 4 | 6;
  range: AddressRange;
  /** For IPv6 forms that carry an IPv4 address (mapped, translated, NAT64, 6to4): that address. */
  embedded?: string;
}

/** Ranges a local or test receiver lives in: allowed only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true. */
const PRIVATE_NETWORK_RANGES: readonly AddressRange[] = ['loopback', 'private', 'link_local', 'cgnat', 'unique_local', 'site_local'];

/** Cloud instance-metadata endpoints: refused even with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true. */
const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '169.254.170.23', '100.100.100.200', '192.0.0.192']);
const METADATA_V6 = new Set(['fd00:ec2::254', 'fd00:ec2::23']);

type V4Rule = [base: string, bits: number, range: AddressRange];
const V4_RULES: V4Rule[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'documentation'], // TEST-NET-1
  ['192.88.99.0', 24, 'reserved'], // former 6to4 relay anycast
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'], // TEST-NET-2
  ['203.0.113.0', 24, 'documentation'], // TEST-NET-3
  ['224.0.0.0', 4, 'multicast'],
  ['255.255.255.255', 32, 'broadcast'],
  ['240.0.0.0', 4, 'reserved'],
];

function v4(text: string): number {
  return parseIp(text)!.value as number;
}
const V4_COMPILED = V4_RULES.map(([base, bits, range]) => ({ base: v4(base), size: 2 ** (32 - bits), range }));

function classifyV4(value: number): AddressRange {
  const text = formatIPv4(value);
  if (METADATA_V4.has(text)) return 'metadata';
  for (const r of V4_COMPILED) if (value >= r.base && value < r.base + r.size) return r.range;
  return 'public';
}

function v6(text: string): bigint {
  return parseIp(text)!.value as bigint;
}
function inPrefix(value: bigint, base: bigint, bits: number): boolean {
  const shift = BigInt(128 - bits);
  return value >> shift === base >> shift;
}

/** IPv6 forms that carry an IPv4 address in their low 32 bits, or (6to4) in bits 16–47. */
const EMBEDDING: Array<{ base: bigint; bits: number; extract: (v: bigint) => number }> = [
  { base: v6('::ffff:0:0'), bits: 96, extract: (v) => Number(v & 0xffffffffn) }, // IPv4-mapped
  { base: v6('::ffff:0:0:0'), bits: 96, extract: (v) => Number(v & 0xffffffffn) }, // IPv4-translated (SIIT)
  { base: v6('64:ff9b::'), bits: 96, extract: (v) => Number(v & 0xffffffffn) }, // NAT64 well-known prefix
  { base: v6('2002::'), bits: 16, extract: (v) => Number((v >> 80n) & 0xffffffffn) }, // 6to4
];

type V6Rule = [base: string, bits: number, range: AddressRange];
const V6_RULES: V6Rule[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'reserved'], // deprecated IPv4-compatible addresses
  ['64:ff9b:1::', 48, 'reserved'], // local-use NAT64 (RFC 8215)
  ['100::', 64, 'reserved'], // discard-only
  ['2001:db8::', 32, 'documentation'],
  ['2001::', 23, 'reserved'], // IETF protocol assignments, Teredo (IPv4 inside, obfuscated)
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'reserved'], // SRv6 SIDs
  ['fc00::', 7, 'unique_local'],
  ['fe80::', 10, 'link_local'],
  ['fec0::', 10, 'site_local'],
  ['ff00::', 8, 'multicast'],
];
const V6_COMPILED = V6_RULES.map(([base, bits, range]) => ({ base: v6(base), bits, range }));
const GLOBAL_UNICAST = v6('2000::');

function classifyV6(value: bigint): { range: AddressRange; embedded?: string } {
  for (const e of EMBEDDING) {
    if (inPrefix(value, e.base, e.bits)) {
      const inner = e.extract(value);
      return { range: classifyV4(inner), embedded: formatIPv4(inner) };
    }
  }
  const text = formatIp({ family: 6, value });
  if (METADATA_V6.has(text)) return { range: 'metadata' };
  for (const r of V6_COMPILED) if (inPrefix(value, r.base, r.bits)) return { range: r.range };
  // everything outside 2000::/3 is unassigned or special
  if (!inPrefix(value, GLOBAL_UNICAST, 3)) return { range: 'reserved' };
  return { range: 'public' };
}

export function classifyIp(ip: IpAddress): AddressClass {
  const address = formatIp(ip);
  if (ip.family === 4) return { address, family: 4, range: classifyV4(ip.value) };
  const c = classifyV6(ip.value);
  return { address, family: 6, ...c };
}

/** Classifies an IP literal in any notation; null when the text is not an IP literal. */
export function classifyAddress(text: string): AddressClass | null {
  const ip = parseIp(text);
  return ip ? classifyIp(ip) : null;
}

/** True when a connection to an address of this range is allowed. */
export function isAllowedRange(range: AddressRange, allowPrivateNetworks: boolean): boolean {
  if (range === 'public') return true;
  return allowPrivateNetworks && PRIVATE_NETWORK_RANGES.includes(range);
}

export type HostClass =
  /** An IP literal: classified, no resolution needed. */
  | { kind: 'ip'; address: AddressClass }
  /** `localhost` and names under `.localhost` (RFC 6761): loopback without asking DNS. */
  | { kind: 'loopback_name' }
  /** A name to resolve; every resolved address must then pass `isAllowedRange`. */
  | { kind: 'name'; name: string }
  /** Not a usable host: ends in a number but is no valid IPv4 literal, or has a zone id. */
  | { kind: 'invalid' };

/** What a URL host is, before any resolution. Accepts hosts with or without IPv6 brackets and a trailing dot. */
export function classifyHost(host: string): HostClass {
  const h = host.toLowerCase();
  if (h.length === 0 || h.includes('%')) return { kind: 'invalid' };
  const ip = parseIp(h);
  if (ip) return { kind: 'ip', address: classifyIp(ip) };
  if (h.startsWith('[') || h.includes(':') || endsInNumber(h)) return { kind: 'invalid' };
  const name = h.endsWith('.') ? h.slice(0, -1) : h;
  if (name === 'localhost' || name.endsWith('.localhost')) return { kind: 'loopback_name' };
  return { kind: 'name', name };
}
