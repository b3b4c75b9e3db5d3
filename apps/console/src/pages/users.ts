import { randomBytes } from 'node:crypto';
import { CONSOLE_ROLES, SUBJECTS, type ConsoleRole, type ConsoleUser } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { issuesOf, type ConsoleApp, type PageContext, type PageResult } from '../app.js';
import { html } from '../html.js';
import { badge, csrfField, notice, table, when } from '../layout.js';

const ROLE_HINTS: Record<ConsoleRole, string> = {
  owner: 'everything, and the team',
  admin: 'keys, webhooks, verifications, review, test data, logs, usage',
  developer: 'keys, verifications, logs',
  reviewer: 'verifications and the review queue',
};

/** Team (owners): the organization's people in this region; an owner adds one with a password shown once. */
export function registerUsers(app: ConsoleApp): void {
  app.get('users', '/users', (ctx) => usersPage(ctx));

  app.post('users', '/users', async (ctx) => {
    const email = (ctx.form.get('email') ?? '').trim();
    const role = ctx.form.get('role') ?? '';
    // a generated first password, shown once to the owner who hands it over (as the admin CLI does)
    const password = randomBytes(18).toString('base64url');
    let user: ConsoleUser;
    try {
      user = await ctx.operator(SUBJECTS.accountsConsoleUserCreate, { org_id: ctx.orgId, email, role: role as ConsoleRole, password });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return usersPage(ctx, { error: issuesOf(e), status: 422, email });
      throw e;
    }
    await ctx.record('console.user.created', user.id, { role: user.role }, null);
    return usersPage(ctx, { created: { user, password } });
  });

  // a new role takes effect on the person's next request (each page view re-reads them)
  app.post('users', '/users/:id/role', async (ctx) => {
    const person = await teammate(ctx);
    const role = ctx.form.get('role') ?? '';
    let user: ConsoleUser;
    try {
      user = await ctx.operator(SUBJECTS.accountsConsoleUserUpdate, { org_id: ctx.orgId, user_id: person.id, role: role as ConsoleRole });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return usersPage(ctx, { error: issuesOf(e), status: 422 });
      throw e;
    }
    if (user.role !== person.role) await ctx.record('console.user.role_changed', user.id, { from: person.role, to: user.role }, null);
    return { redirect: `/users?changed=${encodeURIComponent(user.id)}` };
  });

  // a lost laptop: every session of the person ends (their epoch moves on); they can sign in again
  app.post('users', '/users/:id/sign-out', async (ctx) => {
    const person = await teammate(ctx);
    await ctx.operator(SUBJECTS.accountsConsoleUserSignOut, { org_id: ctx.orgId, user_id: person.id });
    await ctx.record('console.user.signed_out', person.id, {}, null);
    return { redirect: `/users?signed_out=${encodeURIComponent(person.email)}` };
  });

  // removed: the person's sessions open nothing from their next request on
  app.post('users', '/users/:id/remove', async (ctx) => {
    const person = await teammate(ctx);
    try {
      await ctx.operator(SUBJECTS.accountsConsoleUserRemove, { org_id: ctx.orgId, user_id: person.id });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return usersPage(ctx, { error: issuesOf(e), status: 422 });
      throw e;
    }
    await ctx.record('console.user.removed', person.id, { role: person.role }, null);
    return { redirect: `/users?removed=${encodeURIComponent(person.email)}` };
  });
}

/** The person named in the path, if they are of this organization (else the 404 page): one lookup, not the list. */
async function teammate(ctx: PageContext): Promise<ConsoleUser> {
  const person = await ctx.operator(SUBJECTS.accountsConsoleUserGet, { user_id: (ctx.req.params as { id: string }).id });
  if (person.org_id !== ctx.orgId) throw DomainError.notFound('user');
  return person;
}

async function usersPage(ctx: PageContext, opts: { created?: { user: ConsoleUser; password: string }; error?: string[]; status?: number; email?: string } = {}): Promise<PageResult> {
  const { data } = await ctx.operator(SUBJECTS.accountsConsoleUserList, { org_id: ctx.orgId });
  const rows = data.map((u) => [
    html`${u.email}${u.id === ctx.viewer.user.id ? html` <span class="muted">(you)</span>` : ''}`,
    badge(u.role),
    when(u.created_at),
    html`<form method="post" action="/users/${u.id}/role" class="inline">${csrfField(ctx.csrf)}<select name="role" aria-label="Role of ${u.email}">${CONSOLE_ROLES.map((r) => html`<option value="${r}"${r === u.role ? html` selected` : ''}>${r}</option>`)}</select><button type="submit" class="secondary" aria-label="Change the role of ${u.email}">Change role</button></form><form method="post" action="/users/${u.id}/sign-out" class="inline">${csrfField(ctx.csrf)}<button type="submit" class="secondary" aria-label="Sign out ${u.email} everywhere">Sign out</button></form><form method="post" action="/users/${u.id}/remove" class="inline">${csrfField(ctx.csrf)}<button type="submit" class="danger" aria-label="Remove ${u.email}">Remove</button></form>`,
  ]);
  const removed = ctx.query.get('removed');
  const signedOut = ctx.query.get('signed_out');
  return ctx.render(
    'Team',
    html`${opts.created
      ? html`<section class="panel" aria-labelledby="created-title">
<h2 id="created-title">${opts.created.user.email} can sign in</h2>
<p>Give them this first password through a channel you trust. It is shown only now.</p>
<code class="secret" data-testid="new-password">${opts.created.password}</code>
</section>`
      : ''}
${opts.error ? notice('error', html`<ul>${opts.error.map((m) => html`<li>${m}</li>`)}</ul>`) : ''}
${removed ? notice('success', html`${removed} was removed. Their sessions open nothing from their next request on.`) : ''}
${signedOut ? notice('success', html`${signedOut} was signed out everywhere. They can sign in again with their password.`) : ''}
<p class="muted">People of ${ctx.viewer.org.name} who can sign in to this region's console. Accounts are per region. A changed role or a removed person takes effect on their next request; an organization keeps at least one owner.</p>
${table('Team', ['Email', 'Role', 'Added', ''], rows)}
<h2 id="add-person">Add a person</h2>
<form method="post" action="/users" class="panel" aria-labelledby="add-person">
  ${csrfField(ctx.csrf)}
  <label for="email">Email</label>
  <input id="email" name="email" type="email" required value="${opts.email ?? ''}">
  <label for="role">Role</label>
  <select id="role" name="role">
    ${CONSOLE_ROLES.map((r) => html`<option value="${r}"${r === 'developer' ? html` selected` : ''}>${r}: ${ROLE_HINTS[r]}</option>`)}
  </select>
  <button type="submit">Add</button>
</form>`,
    opts.status,
  );
}
