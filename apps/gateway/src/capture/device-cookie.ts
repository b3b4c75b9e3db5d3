import { randomAlphanumeric } from '@verity/keys';

/**
 * The device cookie of the hosted capture page: an opaque id the browser keeps for two years, so that device
 * intelligence can tell one device that opens several links (docs/capture.md). It identifies a browser, not a
 * person, and is never readable by script.
 */
export const DEVICE_COOKIE = 'verity_device';
const ID_PATTERN = /^[A-Za-z0-9]{24}$/;
/** Two years, in seconds. */
export const DEVICE_COOKIE_MAX_AGE = 63_072_000;

/** The device id a request carries, when it is well-formed; a malformed one counts as none. */
export function readDeviceId(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== DEVICE_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (ID_PATTERN.test(value)) return value;
  }
  return null;
}

/** 24 characters of [A-Za-z0-9] from the CSPRNG (about 143 bits). */
export function newDeviceId(): string {
  return randomAlphanumeric(24);
}

/** The Set-Cookie value; `Secure` when the page was requested over HTTPS (directly or through a trusted proxy). */
export function deviceCookie(id: string, secure: boolean): string {
  return `${DEVICE_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${DEVICE_COOKIE_MAX_AGE}${secure ? '; Secure' : ''}`;
}
