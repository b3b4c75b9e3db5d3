import { CONSOLE_TEST_DATA_PURGES, SUBJECTS, type ExpectedOutcome, type Session, type WorkflowTemplate } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { issuesOf, type ConsoleApp, type PageContext, type PageResult } from '../app.js';
import { html, raw, type Html } from '@verity/html';
import { csrfField, notice, table } from '../layout.js';
import { checkLabel, statusBadge } from './verifications.js';

/** The Expected outcome picker: the values and console labels of the spec's table (api-spec.md, "Expected outcome"). */
export const EXPECTED_OUTCOMES: ReadonlyArray<{ value: ExpectedOutcome; label: string; result: string }> = [
  { value: 'pass', label: 'Pass', result: 'Clears every check. The default when omitted.' },
  { value: 'review', label: 'Needs review', result: 'Borderline result; routes the verification to manual review.' },
  { value: 'fail', label: 'Fail', result: 'Result that does not clear verification.' },
  { value: 'doc_quality', label: 'Document quality issue', result: 'Document that cannot be fully read; routes to manual review.' },
];

/**
 * A simple workflow template for an organization that has none in test mode (docs/screening.md, "Workflow
 * templates API"): the identity check and a watchlist check, with two rules so that a run shows a rule trace.
 */
const DEFAULT_TEMPLATE = {
  name: 'Identity and watchlist (console default)',
  checks: ['document', 'face_match', 'liveness', 'watchlist'],
  screening_rules: [
    {
      name: 'Possible watchlist match',
      ruleType: 'watchlist_hit',
      condition: { kind: 'field', field: 'finding.severity.medium.count', operator: 'gte', value: 1 },
      action: 'review',
      priority: 10,
    },
    {
      name: 'Document not clear',
      ruleType: 'custom',
      condition: { kind: 'field', field: 'check.document.outcome', operator: 'neq', value: 'pass' },
      action: 'adjust_score',
      scoreAdjustment: 0.3,
      priority: 20,
    },
  ],
};

const FIELD_LABELS: Record<string, string> = { family_name: 'Family name', given_names: 'Given names', email: 'Email' };

interface CreateForm {
  given: string;
  family: string;
  email: string;
  outcome: string;
  template: string;
}

type Purged = Array<{ service: string; removed: Record<string, number> }>;

/** Test data (contract §19): create an applicant and a test verification with the Expected outcome picker; purge all test data. */
export function registerTestData(app: ConsoleApp): void {
  app.get('test-data', '/test-data', (ctx) => testDataPage(ctx));

  app.post('test-data', '/test-data', async (ctx) => {
    if (ctx.mode !== 'test') return testDataPage(ctx, { status: 409 });
    const f = ctx.form;
    const form: CreateForm = {
      given: (f.get('given_names') ?? '').trim(),
      family: (f.get('family_name') ?? '').trim(),
      email: (f.get('email') ?? '').trim(),
      outcome: f.get('expected_outcome') ?? '',
      template: f.get('workflow_template_id') ?? '',
    };
    const errors: string[] = [];
    if (!form.family) errors.push('Family name: enter the surname (a person with one name enters it here).');
    if (!EXPECTED_OUTCOMES.some((o) => o.value === form.outcome)) errors.push('Expected outcome: choose one.');
    if (!form.template) errors.push('Workflow template: choose one.');
    if (errors.length > 0) return testDataPage(ctx, { form, errors, status: 422 });
    const applicantBody: Record<string, unknown> = { family_name: form.family, given_names: form.given ? form.given.split(/\s+/) : [] };
    if (form.email) applicantBody.email = form.email;
    let applicantId: string;
    try {
      applicantId = (await ctx.call(SUBJECTS.applicantsCreate, { body: applicantBody })).id;
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return testDataPage(ctx, { form, errors: fieldIssues(e), status: 422 });
      throw e;
    }
    let session: Session;
    try {
      session = await ctx.call(SUBJECTS.sessionsCreate, { body: { applicant_id: applicantId, workflow_template_id: form.template, expected_outcome: form.outcome } });
    } catch (e) {
      if (e instanceof DomainError && e.code !== 'internal_error' && e.code !== 'service_unavailable') {
        const why = e.code === 'resource_not_found' ? 'the workflow template no longer exists; choose another.' : e.message;
        return testDataPage(ctx, { form, errors: [`The applicant ${applicantId} was created, but not the verification: ${why}`], status: e.code === 'validation_error' ? 422 : 409 });
      }
      throw e;
    }
    await ctx.record('console.test_data.created', session.id, { applicant_id: applicantId, workflow_template_id: session.workflow_template_id, expected_outcome: form.outcome });
    return { redirect: `/test-data?created=${encodeURIComponent(session.id)}&outcome=${encodeURIComponent(form.outcome)}` };
  });

  app.post('test-data', '/test-data/template', async (ctx) => {
    if (ctx.mode !== 'test') return testDataPage(ctx, { status: 409 });
    const t = await ctx.call(SUBJECTS.templatesCreate, { body: DEFAULT_TEMPLATE });
    await ctx.record('console.test_data.template_created', t.id, { name: t.name, checks: t.checks.join(' ') });
    return { redirect: `/test-data?template=${encodeURIComponent(t.id)}#new-verification` };
  });

  app.post('test-data', '/test-data/purge', async (ctx) => {
    if (ctx.mode !== 'test') return testDataPage(ctx, { status: 409 });
    if ((ctx.form.get('confirm') ?? '').trim() !== 'PURGE') {
      return testDataPage(ctx, { purgeError: 'Type PURGE in capitals to confirm. Nothing was deleted.', status: 422 });
    }
    // each service's part is one transaction; a service that fails stops here, and purging again finishes the rest
    const purged: Purged = [];
    let failed: string | null = null;
    for (const [service, subject] of CONSOLE_TEST_DATA_PURGES) {
      try {
        const reply = await ctx.call(subject, {});
        purged.push({ service, removed: reply.removed });
      } catch (e) {
        ctx.deps.log.error({ err: e, request_id: ctx.requestId, service }, 'console: test data purge stopped');
        failed = service;
        break;
      }
    }
    const details: Record<string, number | boolean> = { complete: failed === null };
    for (const p of purged) for (const [table, n] of Object.entries(p.removed)) details[`${p.service}.${table}`] = n;
    await ctx.record('console.test_data.purged', null, details, 'test');
    return testDataPage(ctx, { purged, failed, status: failed ? 503 : 200 });
  });
}

/** A validation refusal of the applicant, each issue with the form field it concerns. */
function fieldIssues(e: DomainError): string[] {
  const issues = (e.details as { issues?: Array<{ message?: string; path?: Array<string | number> }> } | undefined)?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return issuesOf(e);
  return issues.map((i) => {
    const field = typeof i.path?.[0] === 'string' ? (FIELD_LABELS[i.path[0]] ?? i.path[0]) : null;
    return field ? `${field}: ${i.message ?? 'not accepted'}` : (i.message ?? 'not accepted');
  });
}

interface PageOpts {
  form?: CreateForm;
  errors?: string[];
  purgeError?: string;
  purged?: Purged;
  failed?: string | null;
  status?: number;
}

async function testDataPage(ctx: PageContext, opts: PageOpts = {}): Promise<PageResult> {
  if (ctx.mode !== 'test') {
    return ctx.render(
      'Test data',
      html`${notice('info', html`You are in <strong>live</strong> mode. Test data is made and purged in test mode only, so nothing here can touch a live verification.`)}
<section class="panel">
<p>In test mode you can create an applicant and a verification whose checks give the result you pick (the Expected outcome), and purge every test record of your organization.</p>
<form method="post" action="/mode" class="inline">${csrfField(ctx.csrf)}<input type="hidden" name="mode" value="test"><button type="submit">Switch to test mode</button></form>
</section>`,
      opts.status,
    );
  }
  const templates = (await ctx.call(SUBJECTS.templatesList, { limit: '100' })).data;
  const createdId = ctx.query.get('created');
  let created: Session | null = null;
  if (createdId) created = await ctx.call(SUBJECTS.sessionsGet, { id: createdId }).catch(() => null);
  const newTemplate = ctx.query.get('template');
  return ctx.render(
    'Test data',
    html`<p class="muted">Try your integration end to end without real people: test verifications run at once with synthetic results, never bill and never touch live data. Webhooks registered for test mode receive their events.</p>
${opts.purged ? purgedNotice(opts.purged, opts.failed ?? null) : ''}
${created ? createdNotice(created, ctx.query.get('outcome')) : ''}
${newTemplate && templates.some((t) => t.id === newTemplate) ? notice('success', html`The default workflow template <code>${newTemplate}</code> was created. Pick it below.`) : ''}
<h2 id="new-verification">New test verification</h2>
${templates.length === 0 ? noTemplate(ctx) : createForm(ctx, templates, opts)}
<h2 id="purge">Purge all test data</h2>
<form method="post" action="/test-data/purge" class="panel danger-zone" aria-labelledby="purge">
  ${csrfField(ctx.csrf)}
  <p>Deletes <strong>every test-mode record</strong> of ${ctx.viewer.org.name} in the ${ctx.deps.cfg.REGION.toUpperCase()} region: applicants, verifications, evidence images, email log, webhook deliveries, ID scans and workflow templates. Live data is not touched; usage counts are kept. This cannot be undone.</p>
  ${opts.purgeError ? notice('error', opts.purgeError) : ''}
  <label for="confirm">Type <kbd>PURGE</kbd> to confirm</label>
  <input id="confirm" name="confirm" type="text" autocomplete="off" spellcheck="false" required pattern="PURGE" placeholder="PURGE"${opts.purgeError ? raw(' aria-invalid="true"') : ''}>
  <button type="submit" class="danger">Purge test data</button>
</form>`,
    opts.status,
  );
}

function createdNotice(s: Session, outcome: string | null): Html {
  const label = EXPECTED_OUTCOMES.find((o) => o.value === outcome)?.label;
  return notice(
    'success',
    html`Test verification <code>${s.id}</code> created${label ? html` with the Expected outcome <strong>${label}</strong>` : ''}; it is ${statusBadge(s)} now (a test run rests within seconds).
<a href="/verifications/${s.id}">Open the verification</a>`,
  );
}

function purgedNotice(purged: Purged, failed: string | null): Html {
  const total = purged.reduce((n, p) => n + Object.values(p.removed).reduce((a, b) => a + b, 0), 0);
  const rows: Html[][] = purged.map((p) => {
    const entries = Object.entries(p.removed);
    return [
      html`${p.service}`,
      entries.length === 0 ? html`<span class="muted">nothing</span>` : html`<ul class="counts">${entries.map(([t, n]) => html`<li><code>${t}</code> <strong>${n}</strong></li>`)}</ul>`,
    ];
  });
  return html`<section class="panel purge-result" aria-labelledby="purged-title">
<h2 id="purged-title">${failed ? 'Purge stopped' : 'Test data purged'}</h2>
${
  failed
    ? notice('error', html`The <strong>${failed}</strong> service did not answer, so the purge stopped there. What is listed below is gone; purge again to finish the rest.`)
    : notice('success', html`Every test-mode record of your organization in this region was deleted: <strong>${total}</strong> record${total === 1 ? '' : 's'} in all.`)
}
${table('Records removed per service', ['Service', 'Removed'], rows)}
</section>`;
}

function noTemplate(ctx: PageContext): Html {
  return html`<section class="panel first-p">
<p>A verification runs a <strong>workflow template</strong> (which checks to run and which screening rules apply), and your organization has none in test mode yet.</p>
<p>Create a simple default one, or make your own with <code>POST /v1/workflow-templates</code> and a test key.</p>
<form method="post" action="/test-data/template" class="inline">${csrfField(ctx.csrf)}<button type="submit">Create the default template</button></form>
<p class="hint">${DEFAULT_TEMPLATE.name}: ${DEFAULT_TEMPLATE.checks.map((c) => checkLabel(c as Parameters<typeof checkLabel>[0])).join(', ')}; sends a possible watchlist match to review and adds 0.3 to the score when the document is not clear.</p>
</section>`;
}

function createForm(ctx: PageContext, templates: WorkflowTemplate[], opts: PageOpts): Html {
  const f = opts.form;
  const outcome = f?.outcome || 'pass';
  const chosen = f?.template || ctx.query.get('template') || templates[0]!.id;
  return html`<form method="post" action="/test-data" class="panel" aria-labelledby="new-verification">
  ${csrfField(ctx.csrf)}
  ${opts.errors && opts.errors.length > 0 ? notice('error', html`<p>Nothing was created yet:</p><ul>${opts.errors.map((m) => html`<li>${m}</li>`)}</ul>`) : ''}
  <div class="form-grid">
  <fieldset class="plain">
    <legend>Applicant</legend>
    <label for="given_names">Given names <span class="hint">in order, separated by spaces; empty for a person with one name</span></label>
    <input id="given_names" name="given_names" type="text" autocomplete="off" value="${f?.given ?? ''}">
    <label for="family_name">Family name <span class="hint">required</span></label>
    <input id="family_name" name="family_name" type="text" autocomplete="off" required value="${f?.family ?? ''}">
    <label for="email">Email <span class="hint">optional; test mode never sends email</span></label>
    <input id="email" name="email" type="email" autocomplete="off" value="${f?.email ?? ''}">
  </fieldset>
  <fieldset class="outcomes">
    <legend>Expected outcome</legend>
    ${EXPECTED_OUTCOMES.map(
      (o) => html`<label class="choice"><input type="radio" name="expected_outcome" value="${o.value}"${o.value === outcome ? raw(' checked') : ''}> <span><strong>${o.label}</strong> <span class="hint">${o.result}</span></span></label>`,
    )}
  </fieldset>
  </div>
  <label for="workflow_template_id">Workflow template</label>
  <select id="workflow_template_id" name="workflow_template_id" class="wide" required>
    ${templates.map((t) => html`<option value="${t.id}"${t.id === chosen ? raw(' selected') : ''}>${t.name} · ${t.checks.length > 0 ? t.checks.map(checkLabel).join(', ') : 'no checks'}</option>`)}
  </select>
  <p><button type="submit">Create test verification</button></p>
</form>`;
}
