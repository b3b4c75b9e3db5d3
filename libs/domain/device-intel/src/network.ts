/**
 * Addresses: normalization, "same network" comparison, and the operator's address lists (Tor exit nodes, bad
 * networks), loaded from plain-text files into a `net.BlockList`.
 */
import { readFile } from 'node:fs/promises';
import { BlockList, isIPv4, isIPv6 } from 'node:net';

export type Family = 'ipv4' | 'ipv6';

export interface Address {
  family: Family;
  /** The address in its usual text form; an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) becomes IPv4. */
  text: string;
}

const MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** An IP address as a caller saw it, or undefined when it is not one. Brackets and zone ids are refused. */
export function parseAddress(ip: string | null | undefined): Address | undefined {
  if (typeof ip !== 'string') return undefined;
  const s = ip.trim();
  if (isIPv4(s)) return { family: 'ipv4', text: s };
  if (!isIPv6(s) || s.includes('%')) return undefined;
  const m = MAPPED.exec(s);
  if (m && isIPv4(m[1])) return { family: 'ipv4', text: m[1] };
  return { family: 'ipv6', text: s.toLowerCase() };
}

/** The 16 bytes of an IPv6 address (valid by `isIPv6`, no IPv4 tail needed beyond what it allows). */
function ipv6Bytes(text: string): number[] {
  let s = text;
  // An embedded IPv4 tail (`64:ff9b::1.2.3.4`) becomes two groups.
  const tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number);
    s = `${s.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = s.split('::');
  const h = head === '' ? [] : head.split(':');
  const r = rest === undefined ? [] : rest === '' ? [] : rest.split(':');
  const groups = rest === undefined ? h : [...h, ...Array<string>(8 - h.length - r.length).fill('0'), ...r];
  const bytes: number[] = [];
  for (const g of groups) {
    const v = parseInt(g, 16);
    bytes.push(v >> 8, v & 0xff);
  }
  return bytes;
}

/** The first `bits` bits of an address as a string key (bits a multiple of 8). */
function prefixKey(a: Address, bits: number): string {
  const bytes = a.family === 'ipv4' ? a.text.split('.').map(Number) : ipv6Bytes(a.text);
  return bytes.slice(0, bits / 8).join('.');
}

/** Prefix lengths within which two addresses count as the same network. */
export const SAME_NETWORK_PREFIX = { ipv4: 24, ipv6: 48 } as const;

/**
 * `fraud.networkContextChanged`: true when the two addresses are in different /24 (IPv4) or /48 (IPv6) networks;
 * undefined when either is missing or not an address, or when one is IPv4 and the other IPv6 (a dual-stack
 * browser switches families on one network, so the two cannot be compared).
 */
export function networkChanged(start: string | null | undefined, submit: string | null | undefined): boolean | undefined {
  const a = parseAddress(start);
  const b = parseAddress(submit);
  if (a === undefined || b === undefined || a.family !== b.family) return undefined;
  const bits = SAME_NETWORK_PREFIX[a.family];
  return prefixKey(a, bits) !== prefixKey(b, bits);
}

/** A set of addresses and networks an address is checked against. */
export interface AddressList {
  /** Whether the address is listed or inside a listed network; false for anything that is not an address. */
  has(ip: string): boolean;
  /** Entries (addresses and networks) loaded. */
  readonly size: number;
}

/** A list file with a line that is neither an address nor a network. */
export class AddressListError extends Error {
  constructor(
    readonly source: string,
    readonly line: number,
    reason: string,
  ) {
    super(`${source} line ${line}: ${reason}`);
    this.name = 'AddressListError';
  }
}

const PREFIX = /^(?:0|[1-9]\d{0,2})$/;

/**
 * Parses a list: one address (`192.0.2.1`, `2001:db8::1`) or network in CIDR notation (`192.0.2.0/24`,
 * `2001:db8::/32`) a line. `#` starts a comment, to the end of the line; blank lines are skipped; surrounding
 * spaces are ignored. Host bits of a network are ignored (`192.0.2.7/24` is `192.0.2.0/24`). Any other line throws
 * {@link AddressListError} naming `source` and the 1-based line number.
 */
export function parseAddressList(text: string, source = 'list'): AddressList {
  const block = new BlockList();
  let size = 0;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const hash = lines[i].indexOf('#');
    const entry = (hash >= 0 ? lines[i].slice(0, hash) : lines[i]).trim();
    if (entry === '') continue;
    const slash = entry.indexOf('/');
    const a = parseAddress(slash >= 0 ? entry.slice(0, slash) : entry);
    if (a === undefined) throw new AddressListError(source, i + 1, 'not an IP address or CIDR network');
    if (slash < 0) {
      block.addAddress(a.text, a.family);
    } else {
      const p = entry.slice(slash + 1);
      const max = a.family === 'ipv4' ? 32 : 128;
      // `::ffff:192.0.2.0/120` was normalized to IPv4: its prefix also counts the 96 mapped bits.
      const mapped = a.family === 'ipv4' && entry.slice(0, slash).includes(':');
      if (!PREFIX.test(p) || Number(p) > (mapped ? 128 : max) || (mapped && Number(p) < 96)) {
        throw new AddressListError(source, i + 1, mapped ? 'prefix length must be 96 to 128' : `prefix length must be 0 to ${max}`);
      }
      block.addSubnet(a.text, mapped ? Number(p) - 96 : Number(p), a.family);
    }
    size++;
  }
  return {
    size,
    has(ip: string): boolean {
      const a = parseAddress(ip);
      return a !== undefined && block.check(a.text, a.family);
    },
  };
}

/** The operator's lists; a list not loaded is absent, and the fields it feeds resolve to nothing. */
export interface OperatorLists {
  /** Tor exit nodes: feeds `fraud.ipIsTorExit` (and `fraud.ipReputation` when an address is on it). */
  torExits?: AddressList;
  /** Networks rated poor (datacenters, proxies, abuse): feeds `fraud.ipReputation`. */
  badNetworks?: AddressList;
}

export interface ListFiles {
  /** Path of the Tor exit list (`TOR_EXIT_LIST_FILE`); unset or empty: not loaded. */
  torExitFile?: string | null;
  /** Path of the bad-network list (`BAD_NETWORKS_LIST_FILE`); unset or empty: not loaded. */
  badNetworksFile?: string | null;
}

/** The environment variables the live run reads the list paths from. */
export const LIST_FILE_ENV = { torExitFile: 'TOR_EXIT_LIST_FILE', badNetworksFile: 'BAD_NETWORKS_LIST_FILE' } as const;

/** The list paths named by the environment ({@link LIST_FILE_ENV}); unset or empty variables are left out. */
export function listFilesFromEnv(env: Readonly<Record<string, string | undefined>>): ListFiles {
  const files: ListFiles = {};
  const tor = env[LIST_FILE_ENV.torExitFile];
  const bad = env[LIST_FILE_ENV.badNetworksFile];
  if (tor) files.torExitFile = tor;
  if (bad) files.badNetworksFile = bad;
  return files;
}

/**
 * Reads the operator's list files. A file not named is not loaded (its fields stay absent); a named file that
 * cannot be read rejects with the file system's error; a bad line rejects with {@link AddressListError}, whose
 * message names the environment variable, the file and the line number.
 */
export async function loadLists(files: ListFiles): Promise<OperatorLists> {
  const lists: OperatorLists = {};
  if (files.torExitFile) {
    const source = `${LIST_FILE_ENV.torExitFile}=${files.torExitFile}`;
    lists.torExits = parseAddressList(await readFile(files.torExitFile, 'utf8'), source);
  }
  if (files.badNetworksFile) {
    const source = `${LIST_FILE_ENV.badNetworksFile}=${files.badNetworksFile}`;
    lists.badNetworks = parseAddressList(await readFile(files.badNetworksFile, 'utf8'), source);
  }
  return lists;
}
