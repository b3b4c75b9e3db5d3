import type { CaptureLink } from '@verity/contracts';
import { captureSecretFor } from '@verity/keys';
import type { SessionRow } from './sessions.repository.js';

/** Where a live session's capture link points, and the key its client secret is derived with. */
export interface CaptureLinks {
  baseUrl: string;
  secretKey: string;
}

/**
 * A live session's capture link (docs/capture.md) while it waits for its applicant (`pending` or `in_progress`);
 * null otherwise and always in test mode. The client secret is derived again from the session id.
 */
export function captureLink(row: SessionRow, links: CaptureLinks): CaptureLink {
  if (row.mode !== 'live' || !row.capture_expires_at || (row.status !== 'pending' && row.status !== 'in_progress')) {
    return { url: null, client_secret: null, expires_at: null };
  }
  const secret = captureSecretFor(links.secretKey, row.id);
  return { url: `${links.baseUrl.replace(/\/$/, '')}/verify/${secret}`, client_secret: secret, expires_at: row.capture_expires_at.toISOString() };
}
