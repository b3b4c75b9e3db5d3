import { SUBJECTS, type ActivityEntry } from '@verity/contracts';
import type { CallOptions, RpcClient } from '@verity/platform';
import { required, UsageError } from './args.js';

export const ACTIVITY_USAGE = `  activity         --org ORG_ID [--session SES_ID] [--limit 1-100]`;

/**
 * `activity`: an organization's activity log, newest first. It joins the image endpoint's entries (evidence
 * service: `kyc.idv.evidence_exported`, `kyc.idv.evidence_export_failed`) with the ID-scan audit trail
 * (`kyc.idv.document_scanned`); with `--session`, only that verification's entries (ID scans belong to none).
 */
export async function runActivityCommand(f: Record<string, string>, rpc: RpcClient, call: CallOptions): Promise<{ data: ActivityEntry[] }> {
  const org = required(f, 'org');
  const limitFlag = f.limit;
  if (limitFlag !== undefined && !/^[0-9]{1,3}$/.test(limitFlag)) throw new UsageError('--limit must be a whole number from 1 to 100');
  const limit = limitFlag === undefined ? 20 : Number(limitFlag);
  const session = f.session;
  const [images, scans] = await Promise.all([
    rpc.call(SUBJECTS.evidenceActivityList, { org_id: org, session_id: session, limit }, call),
    session === undefined ? rpc.call(SUBJECTS.idScanAuditList, { org_id: org, limit }, call) : Promise.resolve({ data: [] }),
  ]);
  const data = [...images.data, ...scans.data].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0)).slice(0, limit);
  return { data };
}
