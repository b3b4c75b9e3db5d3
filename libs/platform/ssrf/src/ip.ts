/**
 * IP literals in every notation a URL host or a resolver can carry, parsed to numbers. Pure code: no DNS, no
 * sockets. IPv4 follows the inet_aton / WHATWG URL rules (1 to 4 parts; decimal, octal with a leading 0, hex
 * with 0x; the last part fills the remaining bytes), so `2130706433`, `0x7f.1` and `0177.0.0.1` are all
 * 127.0.0.1. IPv6 accepts `::` compression and a dotted IPv4 tail; zone ids (`fe80::1%eth0`) are refused.
 */

export type IpAddress = { family: 4; value: number } | { family: 6; value: bigint };

const MAX_PART_LENGTH = 40;

function parseIPv4Part(part: string): number | null {
  if (part.length === 0 || part.length > MAX_PART_LENGTH) return null;
  let n: number;
  if (/^0[xX][0-9a-fA-F]*$/.test(part)) n = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  else if (/^0[0-7]+$/.test(part)) n = parseInt(part.slice(1), 8);
  else if (/^(0|[1-9][0-9]*)$/.test(part)) n = parseInt(part, 10);
  else return null;
  return Number.isSafeInteger(n) ? n : null;
}

/** An IPv4 address in any inet_aton notation (one trailing dot allowed), or null. */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length < 1 || parts.length > 4) return null;
  const nums: number[] = [];
  for (const p of parts) {
    const n = parseIPv4Part(p);
    if (n === null) return null;
    nums.push(n);
  }
  const last = nums.pop()!;
  for (const n of nums) if (n > 255) return null;
  if (last >= 256 ** (4 - nums.length)) return null;
  let value = 0;
  for (let i = 0; i < nums.length; i++) value += nums[i]! * 256 ** (3 - i);
  return value + last;
}

/**
 * True when a host "ends in a number" (WHATWG URL): its last label is decimal or 0x-hex. Such a host is an
 * IPv4 literal or invalid, never a name to resolve.
 */
export function endsInNumber(host: string): boolean {
  const labels = host.split('.');
  if (labels.length > 1 && labels[labels.length - 1] === '') labels.pop();
  const last = labels[labels.length - 1] ?? '';
  return /^[0-9]+$/.test(last) || /^0[xX][0-9a-fA-F]*$/.test(last);
}

function parseStrictDottedQuad(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

/** An IPv6 address (brackets optional), with `::` and an optional dotted IPv4 tail, or null. */
export function parseIPv6(input: string): bigint | null {
  let text = input;
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (text.length === 0 || text.length > 64 || !text.includes(':') || text.includes('%')) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (s: string): number[] | null => {
    if (s === '') return [];
    const out: number[] = [];
    const pieces = s.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseStrictDottedQuad(piece);
        if (v4 === null) return null;
        out.push(Math.floor(v4 / 65536), v4 % 65536);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return null;
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!head || !tail) return null;
  // a dotted tail is only allowed at the very end
  if (halves.length === 2 && halves[0]!.includes('.')) return null;
  let groups: number[];
  if (halves.length === 2) {
    const fill = 8 - head.length - tail.length;
    if (fill < 1) return null;
    groups = [...head, ...new Array<number>(fill).fill(0), ...tail];
  } else {
    if (head.length !== 8) return null;
    groups = head;
  }
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(g);
  return value;
}

/** An IP literal (IPv6 with or without brackets, IPv4 in any notation), or null when `host` is not one. */
export function parseIp(host: string): IpAddress | null {
  const v6 = parseIPv6(host);
  if (v6 !== null) return { family: 6, value: v6 };
  const v4 = parseIPv4(host);
  if (v4 !== null) return { family: 4, value: v4 };
  return null;
}

export function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(value / 2 ** s) % 256).join('.');
}

/** RFC 5952 text: lower case, leading zeros dropped, the longest run (two or more) of zero groups as `::`. */
export function formatIPv6(value: bigint): string {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

export function formatIp(ip: IpAddress): string {
  return ip.family === 4 ? formatIPv4(ip.value) : formatIPv6(ip.value);
}
