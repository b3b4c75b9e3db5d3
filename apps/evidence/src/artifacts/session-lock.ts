import type { Queryable } from '@verity/platform';

/** The first key of the evidence service's advisory locks on a session (two-key form: apart from other services'). */
const SESSION_LOCK_SPACE = 0x65766964;

/**
 * Serializes, per session, whatever stores images (a capture upload, a run's artifacts) with an erasure of the
 * session, until the transaction ends: an erasure either sees the stored rows and deletes them, or commits its
 * mark first and the store is refused.
 */
export async function lockSession(q: Queryable, sessionId: string): Promise<void> {
  await q.rows('SELECT pg_advisory_xact_lock($1, hashtext($2))', [SESSION_LOCK_SPACE, sessionId]);
}

/** The same locks for several sessions, taken in key order so that two erasures never wait on each other in a cycle. */
export async function lockSessions(q: Queryable, sessionIds: readonly string[]): Promise<void> {
  if (sessionIds.length === 0) return;
  await q.rows(
    `SELECT pg_advisory_xact_lock($1, k) FROM (SELECT DISTINCT hashtext(s) AS k FROM unnest($2::text[]) s ORDER BY 1) keys`,
    [SESSION_LOCK_SPACE, sessionIds],
  );
}

/** True when the session's images were erased: nothing is stored for it again. */
export async function isErased(q: Queryable, sessionId: string): Promise<boolean> {
  const rows = await q.rows<{ erased: boolean }>('SELECT erased_at IS NOT NULL AS erased FROM evidence.captures WHERE session_id = $1', [sessionId]);
  return rows[0]?.erased ?? false;
}
