import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/**
 * Two-factor sign-in codes (RFC 6238, docs/console.md "Two-factor sign-in"): HMAC-SHA-1, six digits, 30-second steps,
 * the settings every authenticator app reads from an `otpauth://` link; and the one-time recovery codes.
 */
export const TOTP_PERIOD_S = 30;
const DIGITS = 6;
/** A code of the step before and the step after the current one is taken too (clocks that differ by up to 30 s). */
const WINDOW = 1;
/** Recovery codes given at enrolment. */
export const RECOVERY_CODES = 10;
/** How long a secret shown for enrolment waits for its first code. */
export const ENROLMENT_TTL_MS = 15 * 60_000;

function totp(secret: string, issuer = '', label = ''): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: DIGITS, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secret) });
}

/** A new secret: 160 random bits (RFC 4226's recommended length), in base32 as apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/…` link an authenticator app scans (as a QR code) or opens. */
export function totpUri(secret: string, issuer: string, account: string): string {
  return totp(secret, issuer, account).toString();
}

/** The time step (`floor(unix seconds / 30)`) of an instant. */
export function stepOf(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_PERIOD_S);
}

/** A six-digit code as typed: spaces and dashes dropped. */
export function totpCodeOf(text: string): string | null {
  const code = text.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(code) ? code : null;
}

/**
 * The time step whose code `code` is, within a step either side of now and later than `lastStep` (the step of the
 * last code taken: a code is good once, so a code seen on the wire or over a shoulder cannot be played again within
 * its window), or null. The caller records the step it answers, atomically (`totp_last_step`).
 */
export function totpStepOf(secret: string, code: string, nowMs: number, lastStep: number | null): number | null {
  const given = Buffer.from(code);
  const t = totp(secret);
  let found: number | null = null;
  for (let delta = -WINDOW; delta <= WINDOW; delta++) {
    const step = stepOf(nowMs) + delta;
    const expected = Buffer.from(t.generate({ timestamp: step * TOTP_PERIOD_S * 1000 }));
    // every step is compared, whatever matched before, so the time taken does not tell which one did
    if (given.length === expected.length && timingSafeEqual(given, expected) && (lastStep === null || step > lastStep)) found ??= step;
  }
  return found;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Ten recovery codes, each 80 random bits as 16 base32 letters in groups of four (`abcd-efgh-ijkl-mnop`). */
export function newRecoveryCodes(n = RECOVERY_CODES): string[] {
  return Array.from({ length: n }, () => {
    const bytes = randomBytes(16);
    const letters = Array.from(bytes, (b) => BASE32[b & 31]).join('');
    return letters.match(/.{4}/g)!.join('-');
  });
}

/** A recovery code as typed (any case, with or without dashes and spaces) in the form it is hashed in, or null. */
export function recoveryCodeOf(text: string): string | null {
  const code = text.toLowerCase().replace(/[\s-]/g, '');
  return /^[a-z2-7]{16}$/.test(code) ? code : null;
}

/** What accounts keeps of a recovery code: the SHA-256 of its 16 letters (80 random bits: nothing to stretch). */
export function recoveryCodeHash(code: string): string {
  return createHash('sha256').update(recoveryCodeOf(code) ?? code).digest('base64url');
}
