import { classifyHost, type HostClass } from './classify.js';

export const MAX_RECEIVER_URL_LENGTH = 2048;

export type ReceiverUrlProblem = 'invalid_url' | 'https_required' | 'credentials_not_allowed' | 'fragment_not_allowed' | 'too_long';

export type ReceiverUrl =
  | {
      ok: true;
      /** The URL as the WHATWG parser normalizes it (IPv4 notations to dotted quads, IPv6 compressed). */
      href: string;
      /** Host without IPv6 brackets. */
      hostname: string;
      port: number;
      host: HostClass;
    }
  | { ok: false; problem: ReceiverUrlProblem; message: string };

const MESSAGES: Record<ReceiverUrlProblem, string> = {
  invalid_url: 'url must be an absolute URL',
  https_required: 'url must start with https:// (plain HTTP is refused)',
  credentials_not_allowed: 'url must not carry a user name or password',
  fragment_not_allowed: 'url must not carry a #fragment',
  too_long: `url must be at most ${MAX_RECEIVER_URL_LENGTH} characters`,
};

function refuse(problem: ReceiverUrlProblem): ReceiverUrl {
  return { ok: false, problem, message: MESSAGES[problem] };
}

/**
 * Checks the shape of a webhook receiver URL: https only, no credentials, no fragment, a usable host. The
 * address check (literal or resolved) is separate: see `classifyHost` and `isAllowedRange`.
 */
export function parseReceiverUrl(raw: unknown): ReceiverUrl {
  if (typeof raw !== 'string' || raw.trim() === '') return refuse('invalid_url');
  if (raw.length > MAX_RECEIVER_URL_LENGTH) return refuse('too_long');
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return refuse('invalid_url');
  }
  if (u.protocol !== 'https:') return refuse('https_required');
  if (u.username !== '' || u.password !== '') return refuse('credentials_not_allowed');
  if (u.hash !== '' || raw.includes('#')) return refuse('fragment_not_allowed');
  const hostname = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  const host = classifyHost(hostname);
  if (host.kind === 'invalid') return refuse('invalid_url');
  return { ok: true, href: u.href, hostname, port: u.port === '' ? 443 : Number(u.port), host };
}
