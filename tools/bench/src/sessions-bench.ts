import { SUBJECTS } from '@verity/contracts';
import { printComparison, startBareServer, type BenchEnv } from './gateway-bench.js';
import { measure } from './load.js';

/** 20 rules mixing fixed, pattern and nested-group conditions. */
function twentyRules(): unknown[] {
  const rules: unknown[] = [];
  const fields: Array<[string, string, unknown]> = [
    ['applicant.email.domain', 'in', ['example.com', 'mailinator.com']],
    ['finding.count', 'gt', 2],
    ['finding.severity.high.count', 'gte', 1],
    ['check.document.outcome', 'eq', 'fail'],
    ['check.watchlist.outcome', 'eq', 'review'],
    ['any.finding.watchlist.severity', 'eq', 'high'],
    ['count_where.finding.adverse_media.confirmed', 'gt', 0],
    ['session.metadata.risk_tier', 'eq', 'high'],
    ['applicant.phone', 'exists', true],
    ['finding.severity.medium.count', 'gt', 3],
  ];
  for (let i = 0; i < 20; i++) {
    const [field, operator, value] = fields[i % fields.length]!;
    const leaf = { kind: 'field', field, operator, value };
    rules.push({
      name: `rule ${i}`,
      ruleType: 'custom',
      action: i % 4 === 0 ? 'review' : i % 4 === 1 ? 'adjust_score' : 'tag',
      ...(i % 4 === 1 ? { scoreAdjustment: 0.1 } : {}),
      priority: i,
      condition: i % 3 === 0 ? { kind: 'group', op: 'OR', children: [leaf, { kind: 'field', field: 'finding.count', operator: 'gt', value: 10 }] } : leaf,
    });
  }
  return rules;
}

/** The five keys of docs/metadata.md, plus one key of the client's own (kept, never read). */
const FIVE_KEYS_METADATA = {
  start_datetime: '2026-03-14T09:30:00+01:00',
  end_datetime: '2026-03-14T18:00:00+01:00',
  amount: 125000,
  currency: 'EUR',
  location: 'Rue de la Loi 16, Brussels',
  booking_ref: 'BK-2231',
};

/**
 * POST /v1/sessions (live mode: the create path only, no background run) with all five metadata keys and a
 * 20-rule template, next to a bare Fastify handler inserting the same row into Postgres.
 */
export async function benchSessions(env: BenchEnv): Promise<void> {
  const gw = env.stack.baseUrl('us');
  const op = { principal: null, requestId: 'req_bench' };
  const live = await env.rpc.call(
    SUBJECTS.accountsKeyCreate,
    { org_id: env.orgId, mode: 'live', type: 'sk', scopes: ['applicants:write', 'sessions:write', 'sessions:read', 'workflows:write'] },
    op,
  );
  const auth = { authorization: `Bearer ${live.key}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${gw}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    const json = (await res.json()) as { data: { id: string; version?: number } };
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const template = await post('/v1/workflow-templates', {
    name: 'bench',
    checks: ['document', 'face_match', 'liveness', 'watchlist', 'document_signing'],
    screening_rules: twentyRules(),
    metadata: { risk_tier: 'low' },
    signing_document: { title: 'Rental agreement', variables: ['start_datetime', 'end_datetime', 'amount', 'currency', 'location'] },
  });
  const applicant = await post('/v1/applicants', { family_name: 'Hopper', given_names: ['Grace'] });
  const body = JSON.stringify({ applicant_id: applicant.id, workflow_template_id: template.id, metadata: FIVE_KEYS_METADATA });

  const bare = await startBareServer(env.dbUrl);
  try {
    const barePost = await measure({ label: 'bare POST /sessions', url: `${bare.url}/sessions`, method: 'POST', headers: { 'content-type': 'application/json', 'x-org': env.orgId }, body });
    const gwPost = await measure({ label: 'gateway POST /v1/sessions', url: `${gw}/v1/sessions`, method: 'POST', headers: auth, body });
    printComparison('Sessions: POST /v1/sessions (five metadata keys, 20-rule template) vs bare Fastify → Postgres insert', [[barePost, gwPost, 40]]);
  } finally {
    await bare.stop();
  }
}
