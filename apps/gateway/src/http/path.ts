/**
 * The one spelling of a request path that routing, authentication and rate limiting all see. Percent-encoded
 * unreserved characters (RFC 3986 §2.3: letters, digits, `-._~`) are decoded, since `/%761/me` and `/v1/me`
 * name the same resource; other escapes stay encoded, in upper case. Encodings that would change the path's
 * structure are refused rather than interpreted: an encoded `/` or `\`, an encoded NUL, and any `.` or `..`
 * segment however spelled. A malformed escape is left as it is for the router, which names no route for it.
 */
export type NormalisedPath = { ok: true; url: string } | { ok: false };

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const REFUSED_BYTES = new Set([0x2f, 0x5c, 0x00]);

export function normalisePath(url: string): NormalisedPath {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q);
  if (!path.includes('%') && !path.includes('.')) return { ok: true, url };
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const c = path[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    const hex = path.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return { ok: true, url }; // malformed: the router's 404
    const byte = parseInt(hex, 16);
    if (REFUSED_BYTES.has(byte)) return { ok: false };
    const ch = String.fromCharCode(byte);
    out += UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
    i += 2;
  }
  if (out.split('/').some((segment) => segment === '.' || segment === '..')) return { ok: false };
  return { ok: true, url: out + query };
}
