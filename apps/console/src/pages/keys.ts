import { SUBJECTS, type ApiKeyRecord, type CreatedApiKey } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { issuesOf, type ConsoleApp, type PageContext, type PageResult } from '../app.js';
import { keyScopesOf } from '../auth/roles.js';
import { html, type Html } from '@verity/html';
import { badge, csrfField, emptyState, notice, table, when } from '../layout.js';

const SCOPE_HINTS: Record<string, string> = {
  'applicants:read': 'read applicants',
  'applicants:write': 'create applicants',
  'sessions:read': 'read verifications',
  'sessions:write': 'create, cancel and decide verifications',
  'sessions:read_report': 'evidence images and reports',
  'workflows:read': 'read workflow templates',
  'workflows:write': 'create and change workflow templates',
  'webhooks:read': 'read the webhook delivery log',
  'idv:scan': 'scan an ID document (POST /v1/id-verification)',
  'dsar:write': 'data subject requests (export, erasure)',
};

/** API keys (contract §19): the organization's keys of the current mode; create (shown once), rotate, revoke. */
export function registerKeys(app: ConsoleApp): void {
  app.get('keys', '/keys', (ctx) => keysPage(ctx));

  app.post('keys', '/keys', async (ctx) => {
    const type = ctx.form.get('type') ?? '';
    const scopes = ctx.form.getAll('scopes');
    const grantable = grantableScopes(ctx);
    if (grantable.length === 0) return notYours(ctx);
    const beyond = scopes.filter((s) => !(grantable as readonly string[]).includes(s));
    if (beyond.length > 0) return keysPage(ctx, { error: [`Your role cannot give a ${ctx.mode} key these scopes: ${beyond.join(', ')}.`], status: 403 });
    if (scopes.length === 0) return keysPage(ctx, { error: ['Choose at least one scope.'], status: 422 });
    let created: CreatedApiKey;
    try {
      created = await ctx.call(SUBJECTS.accountsConsoleKeyCreate, { type: type as 'sk' | 'pk', scopes });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return keysPage(ctx, { error: issuesOf(e), status: 422 });
      throw e;
    }
    await ctx.record('console.key.created', created.id, { type: created.type, scopes: created.scopes.join(' ') });
    return keysPage(ctx, { shown: { key: created, verb: 'created' } });
  });

  app.post('keys', '/keys/:id/rotate', async (ctx) => {
    if (grantableScopes(ctx).length === 0) return notYours(ctx);
    const key = await ownKey(ctx);
    const rotated = await ctx.call(SUBJECTS.accountsConsoleKeyRotate, { key_id: key.id });
    await ctx.record('console.key.rotated', key.id);
    return keysPage(ctx, { shown: { key: rotated, verb: 'rotated' } });
  });

  app.post('keys', '/keys/:id/revoke', async (ctx) => {
    if (grantableScopes(ctx).length === 0) return notYours(ctx);
    const key = await ownKey(ctx);
    await ctx.call(SUBJECTS.accountsConsoleKeyRevoke, { key_id: key.id });
    await ctx.record('console.key.revoked', key.id);
    return { redirect: `/keys?revoked=${encodeURIComponent(key.id)}` };
  });
}

/** The scopes this person may give a key of the mode they work in; none: they do not manage that mode's keys. */
function grantableScopes(ctx: PageContext) {
  return keyScopesOf(ctx.viewer.user.role, ctx.mode);
}

/** A change to keys of a mode this person's role does not manage: 403, nothing changed. */
async function notYours(ctx: PageContext): Promise<PageResult> {
  return keysPage(ctx, { error: [`Only owners and admins create, rotate or revoke ${ctx.mode} keys; nothing was changed.`], status: 403 });
}

/** The key named in the path, if it is one of this organization's active keys of the current mode (else 404). */
async function ownKey(ctx: PageContext): Promise<ApiKeyRecord> {
  const id = (ctx.req.params as { id: string }).id;
  const { data } = await ctx.call(SUBJECTS.accountsConsoleKeyList, {});
  const key = data.find((k) => k.id === id && !k.revoked);
  if (!key) throw DomainError.notFound('key');
  return key;
}

async function keysPage(ctx: PageContext, opts: { shown?: { key: CreatedApiKey; verb: string }; error?: string[]; status?: number } = {}): Promise<PageResult> {
  const { data } = await ctx.call(SUBJECTS.accountsConsoleKeyList, {});
  const revoked = ctx.query.get('revoked');
  const grantable = grantableScopes(ctx);
  const manages = grantable.length > 0;
  const rows: Html[][] = data.map((k) => [
    html`<code>${k.id}</code>`,
    html`${k.type === 'sk' ? 'Secret' : 'Publishable'}`,
    html`${k.scopes.map((s) => html`<code>${s}</code> `)}`,
    when(k.created_at),
    k.revoked ? badge('revoked', 'bad') : badge('active', 'ok'),
    k.revoked || !manages
      ? html``
      : html`<form method="post" action="/keys/${k.id}/rotate" class="inline">${csrfField(ctx.csrf)}<button type="submit" class="secondary" aria-label="Rotate ${k.id}">Rotate</button></form><form method="post" action="/keys/${k.id}/revoke" class="inline">${csrfField(ctx.csrf)}<button type="submit" class="danger" aria-label="Revoke ${k.id}">Revoke</button></form>`,
  ]);
  return ctx.render(
    'API keys',
    html`${opts.shown ? shownOnce(opts.shown.key, opts.shown.verb) : ''}
${revoked ? notice('success', html`Key <code>${revoked}</code> was revoked. Requests with it are refused from now on.`) : ''}
${opts.error ? notice('error', html`<ul>${opts.error.map((m) => html`<li>${m}</li>`)}</ul>`) : ''}
<p class="muted">Keys of <strong>${ctx.mode}</strong> mode in the ${ctx.deps.cfg.REGION.toUpperCase()} region. Rotating gives a key a new secret (the old one stops working at once); revoking ends it.</p>
${data.length === 0 ? emptyState(`No ${ctx.mode} keys yet`, manages ? 'Create one below to call the API from your backend.' : 'An owner or an admin of your organization creates them.') : table('API keys', ['Key', 'Type', 'Scopes', 'Created', 'Status', ''], rows)}
${manages ? newKeyForm(ctx, grantable) : notice('info', html`Only owners and admins create, rotate or revoke ${ctx.mode} keys. Switch to test mode to work with test keys.`)}`,
    opts.status,
  );
}

function newKeyForm(ctx: PageContext, grantable: readonly string[]): Html {
  return html`<h2 id="new-key">New ${ctx.mode} key</h2>
<form method="post" action="/keys" class="panel" aria-labelledby="new-key">
  ${csrfField(ctx.csrf)}
  <label for="type">Type</label>
  <select id="type" name="type">
    <option value="sk">Secret key (server side)</option>
    <option value="pk">Publishable key (browser)</option>
  </select>
  <fieldset>
    <legend>Scopes</legend>
    ${grantable.map((s) => html`<label><input type="checkbox" name="scopes" value="${s}"> <code>${s}</code> <span class="hint">${SCOPE_HINTS[s] ?? ''}</span></label>`)}
  </fieldset>
  <button type="submit">Create key</button>
</form>`;
}

function shownOnce(key: CreatedApiKey, verb: string): Html {
  return html`<section class="panel" aria-labelledby="shown-title">
<h2 id="shown-title">Key ${verb}: copy it now</h2>
<p>This is the only time the key is shown. Store it in your secret manager; the region keeps only its hash.</p>
<code class="secret" data-testid="new-key">${key.key}</code>
<p class="muted">Key id <code>${key.id}</code> · ${key.mode} · ${key.scopes.join(', ')}</p>
</section>`;
}
