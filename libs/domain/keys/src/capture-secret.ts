import { createHash, createHmac } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET = /^vcs_[A-Za-z0-9]{43}$/;

/**
 * The client secret of a live session's capture link (docs/capture.md): `vcs_` + 43 characters of `[A-Za-z0-9]`,
 * the HMAC-SHA256 of the session id under the region's capture key, in base 62 (62^43 > 2^256, so every MAC has a
 * spelling). Derived, not stored: a read of the session can show it again, while the database keeps only its
 * SHA-256 hash, from which neither it nor the key can be recovered.
 */
export function captureSecretFor(key: string, sessionId: string): string {
  let n = BigInt(`0x${createHmac('sha256', key).update(`capture:${sessionId}`).digest('hex')}`);
  let out = '';
  for (let i = 0; i < 43; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return `vcs_${out}`;
}

/** True when `s` has the shape of a client secret (nothing is looked up). */
export function isCaptureSecret(s: unknown): s is string {
  return typeof s === 'string' && SECRET.test(s);
}

/** What is stored of a client secret, and what it is looked up by: its SHA-256, hex. */
export function hashCaptureSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
