import { createHash, randomBytes } from 'node:crypto';

/** How long an invitation link works after it was made. */
export const INVITATION_TTL_MS = 7 * 86_400_000;

/** The shape of an invitation token: 32 random bytes in base64url. */
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

/** A new invitation token: 256 random bits, URL-safe (the link's last part). */
export function newInvitationToken(): string {
  return randomBytes(32).toString('base64url');
}

export function isInvitationToken(v: unknown): v is string {
  return typeof v === 'string' && TOKEN_RE.test(v);
}

/**
 * What accounts stores of a token: its SHA-256. The token carries 256 random bits, so a fast hash is enough (no
 * salt or stretching: nobody can try the space); a copy of the table opens no invitation.
 */
export function invitationTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
