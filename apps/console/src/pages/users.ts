import { CONSOLE_ROLES, SUBJECTS, type ConsoleInvitation, type ConsoleRole, type ConsoleUser, type CreatedConsoleInvitation } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { issuesOf, type ConsoleApp, type PageContext, type PageResult } from '../app.js';
import { html } from '@verity/html';
import { badge, csrfField, notice, table, when } from '../layout.js';

const ROLE_HINTS: Record<ConsoleRole, string> = {
  owner: 'everything, and the team',
  admin: 'keys, webhooks, verifications, review, test data, logs, usage',
  developer: 'keys, verifications, logs',
  reviewer: 'verifications and the review queue',
};

/**
 * Team (owners): the organization's people in this region and the invitations pending; an owner invites a person by
 * a link shown once, with which the person sets their own password (docs/console.md, "Team").
 */
export function registerUsers(app: ConsoleApp): void {
  app.get('users', '/users', (ctx) => usersPage(ctx));

  // an invitation by link: the person sets their own password (the console sends no email; the owner hands the link over)
  app.post('users', '/users/invitations', async (ctx) => {
    const email = (ctx.form.get('email') ?? '').trim();
    const role = ctx.form.get('role') ?? '';
    let created: CreatedConsoleInvitation;
    try {
      created = await ctx.call(SUBJECTS.accountsConsoleTeamInvite, { email, role: role as ConsoleRole });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return usersPage(ctx, { error: issuesOf(e), status: 422, email });
      throw e;
    }
    const { invitation } = created;
    await ctx.record('console.user.invited', invitation.id, { email: invitation.email, role: invitation.role }, null);
    return usersPage(ctx, { invited: { invitation, link: `${ctx.deps.cfg.CONSOLE_PUBLIC_ORIGIN}/invitation/${created.token}` } });
  });

  app.post('users', '/users/invitations/:id/revoke', async (ctx) => {
    let invitation: ConsoleInvitation;
    try {
      invitation = await ctx.call(SUBJECTS.accountsConsoleTeamRevokeInvitation, { invitation_id: (ctx.req.params as { id: string }).id });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return usersPage(ctx, { error: issuesOf(e), status: 422 });
      throw e;
    }
    await ctx.record('console.user.invitation_revoked', invitation.id, { email: invitation.email, role: invitation.role }, null);
    return { redirect: `/users?revoked=${encodeURIComponent(invitation.email)}` };
  });

  // a new role takes effect on the person's next request (each page view re-reads them)
  app.post('users', '/users/:id/role', async (ctx) => {
    const person = await teammate(ctx);
    const role = ctx.form.get('role') ?? '';
    let user: ConsoleUser;
    try {
      user = await ctx.call(SUBJECTS.accountsConsoleTeamRole, { user_id: person.id, role: role as ConsoleRole });
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
    await ctx.call(SUBJECTS.accountsConsoleTeamSignOut, { user_id: person.id });
    await ctx.record('console.user.signed_out', person.id, {}, null);
    return { redirect: `/users?signed_out=${encodeURIComponent(person.email)}` };
  });

  // disabled: they cannot sign in, and their sessions open nothing from their next request on; enabled: they sign in again
  for (const [action, subject, activity] of [
    ['disable', SUBJECTS.accountsConsoleTeamDisable, 'console.user.disabled'],
    ['enable', SUBJECTS.accountsConsoleTeamEnable, 'console.user.enabled'],
  ] as const) {
    app.post('users', `/users/:id/${action}`, async (ctx) => {
      const person = await teammate(ctx);
      let user: ConsoleUser;
      try {
        user = await ctx.call(subject, { user_id: person.id });
      } catch (e) {
        if (e instanceof DomainError && e.code === 'validation_error') return usersPage(ctx, { error: issuesOf(e), status: 422 });
        throw e;
      }
      if ((user.disabled_at === null) !== (person.disabled_at === null)) await ctx.record(activity, person.id, { role: person.role }, null);
      return { redirect: `/users?${action}d=${encodeURIComponent(person.email)}` };
    });
  }

  // required: everyone without two-factor sign-in is sent to set it up at their next request, and can do nothing else
  app.post('users', '/users/two-factor', async (ctx) => {
    const required = ctx.form.get('required') === 'true';
    const set = await ctx.call(SUBJECTS.accountsConsoleTeamTwoFactor, { required });
    if (set.required !== ctx.viewer.user.totp_required) await ctx.record('console.team.two_factor_required', ctx.orgId, { required: set.required }, null);
    return { redirect: `/users?two_factor=${set.required ? 'required' : 'optional'}` };
  });

  // a lost phone: the person's two-factor sign-in is turned off and their sessions end; they set it up again (at once
  // if the organization requires it)
  app.post('users', '/users/:id/reset-two-factor', async (ctx) => {
    const person = await teammate(ctx);
    try {
      await ctx.call(SUBJECTS.accountsConsoleTeamResetTwoFactor, { user_id: person.id });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return usersPage(ctx, { error: issuesOf(e), status: 422 });
      throw e;
    }
    await ctx.record('console.user.two_factor_reset', person.id, { role: person.role }, null);
    return { redirect: `/users?two_factor_reset=${encodeURIComponent(person.email)}` };
  });

  // removed: the person's sessions open nothing from their next request on
  app.post('users', '/users/:id/remove', async (ctx) => {
    const person = await teammate(ctx);
    try {
      await ctx.call(SUBJECTS.accountsConsoleTeamRemove, { user_id: person.id });
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
  const person = await ctx.call(SUBJECTS.accountsConsoleTeamGet, { user_id: (ctx.req.params as { id: string }).id });
  if (person.org_id !== ctx.orgId) throw DomainError.notFound('user');
  return person;
}

async function usersPage(ctx: PageContext, opts: { invited?: { invitation: ConsoleInvitation; link: string }; error?: string[]; status?: number; email?: string } = {}): Promise<PageResult> {
  const [{ data }, { data: invitations }] = await Promise.all([
    ctx.call(SUBJECTS.accountsConsoleTeamList, {}),
    ctx.call(SUBJECTS.accountsConsoleTeamInvitations, {}),
  ]);
  const emailOf = new Map(data.map((u) => [u.id, u.email]));
  const rows = data.map((u) => [
    html`${u.email}${u.id === ctx.viewer.user.id ? html` <span class="muted">(you)</span>` : ''}`,
    badge(u.role),
    u.disabled_at === null ? badge('active', 'ok') : html`${badge('disabled', 'bad')} <span class="muted">since ${when(u.disabled_at)}</span>`,
    u.totp_enabled_at
      ? html`${badge('on', 'ok')}${u.id === ctx.viewer.user.id ? '' : html` <form method="post" action="/users/${u.id}/reset-two-factor" class="inline">${csrfField(ctx.csrf)}<button type="submit" class="secondary" aria-label="Reset the two-factor sign-in of ${u.email}">Reset</button></form>`}`
      : badge('off', u.totp_required ? 'warn' : 'neutral'),
    when(u.created_at),
    html`<form method="post" action="/users/${u.id}/role" class="inline">${csrfField(ctx.csrf)}<select name="role" aria-label="Role of ${u.email}">${CONSOLE_ROLES.map((r) => html`<option value="${r}"${r === u.role ? html` selected` : ''}>${r}</option>`)}</select><button type="submit" class="secondary" aria-label="Change role of ${u.email}">Change role</button></form><form method="post" action="/users/${u.id}/sign-out" class="inline">${csrfField(ctx.csrf)}<button type="submit" class="secondary" aria-label="Sign out ${u.email} everywhere">Sign out</button></form>${
      u.disabled_at === null
        ? html`<form method="post" action="/users/${u.id}/disable" class="inline">${csrfField(ctx.csrf)}<button type="submit" class="secondary" aria-label="Disable ${u.email}">Disable</button></form>`
        : html`<form method="post" action="/users/${u.id}/enable" class="inline">${csrfField(ctx.csrf)}<button type="submit" class="secondary" aria-label="Enable ${u.email}">Enable</button></form>`
    }<form method="post" action="/users/${u.id}/remove" class="inline">${csrfField(ctx.csrf)}<button type="submit" class="danger" aria-label="Remove ${u.email}">Remove</button></form>`,
  ]);
  const pending = invitations.map((i) => [
    html`${i.email}`,
    badge(i.role),
    html`${emailOf.get(i.invited_by) ?? html`<span class="muted">a former member</span>`}`,
    when(i.expires_at),
    html`<form method="post" action="/users/invitations/${i.id}/revoke" class="inline">${csrfField(ctx.csrf)}<button type="submit" class="danger" aria-label="Revoke the invitation of ${i.email}">Revoke</button></form>`,
  ]);
  const removed = ctx.query.get('removed');
  const signedOut = ctx.query.get('signed_out');
  const revoked = ctx.query.get('revoked');
  const twoFactor = ctx.query.get('two_factor');
  const required = ctx.viewer.user.totp_required;
  const without = data.filter((u) => u.totp_enabled_at === null && u.disabled_at === null).length;
  const disabled = ctx.query.get('disabled');
  const enabled = ctx.query.get('enabled');
  const reset = ctx.query.get('two_factor_reset');
  return ctx.render(
    'Team',
    html`${opts.invited
      ? html`<section class="panel" aria-labelledby="invited-title">
<h2 id="invited-title">Invitation for ${opts.invited.invitation.email}</h2>
<p>This console sends no email. Give ${opts.invited.invitation.email} this link through a channel you trust: with it they choose their own password and are signed in as ${opts.invited.invitation.role}. It works once, until ${when(opts.invited.invitation.expires_at)}, and is shown only now.</p>
<code class="secret" data-testid="invitation-link">${opts.invited.link}</code>
</section>`
      : ''}
${opts.error ? notice('error', html`<ul>${opts.error.map((m) => html`<li>${m}</li>`)}</ul>`) : ''}
${removed ? notice('success', html`${removed} was removed. Their sessions open nothing from their next request on.`) : ''}
${signedOut ? notice('success', html`${signedOut} was signed out everywhere. They can sign in again with their password.`) : ''}
${revoked ? notice('success', html`The invitation of ${revoked} was revoked: its link no longer works.`) : ''}
${disabled ? notice('success', html`${disabled} was disabled: they cannot sign in, and their sessions open nothing from their next request on.`) : ''}
${enabled ? notice('success', html`${enabled} was enabled: they can sign in again with their password.`) : ''}
${reset ? notice('success', html`The two-factor sign-in of ${reset} was reset: they were signed out, and sign in with their password alone${required ? ', then set it up again before anything else' : ''}.`) : ''}
${twoFactor === 'required' ? notice('success', 'Two-factor sign-in is now required: everyone without it is sent to set it up at their next request, and can do nothing else until then.') : ''}
${twoFactor === 'optional' ? notice('success', 'Two-factor sign-in is no longer required: each person chooses. Those who have it keep it.') : ''}
<p class="muted">People of ${ctx.viewer.org.name} who can sign in to this region's console. Accounts are per region. A changed role, a disabled or a removed person takes effect on their next request; an organization keeps at least one owner who is not disabled.</p>
${table('Team', ['Email', 'Role', 'Status', 'Two-factor', 'Added', ''], rows)}
${pending.length > 0
  ? html`<h2 id="pending-invitations">Pending invitations</h2>
${table('Pending invitations', ['Email', 'Role', 'Invited by', 'Expires', ''], pending)}`
  : ''}
<h2 id="two-factor">Two-factor sign-in</h2>
<form method="post" action="/users/two-factor" class="panel" aria-labelledby="two-factor">
  ${csrfField(ctx.csrf)}
  ${required
    ? html`<p>${badge('required', 'ok')} Everyone of ${ctx.viewer.org.name} signs in with a code of an authenticator app after their password; a person without it is sent to set it up right after their password, and can do nothing else until then.${without > 0 ? html` ${without} ${without === 1 ? 'person has' : 'people have'} not set it up yet.` : ''}</p>
<input type="hidden" name="required" value="false"><button type="submit" class="secondary">Stop requiring two-factor sign-in</button>`
    : html`<p>${badge('optional')} Each person chooses on their own account page.${without > 0 ? html` ${without} ${without === 1 ? 'person has' : 'people have'} not set it up.` : ''} Requiring it takes effect on each person's next request: those without it must set it up before anything else.</p>
<input type="hidden" name="required" value="true"><button type="submit">Require two-factor sign-in</button>`}
</form>
<h2 id="invite-person">Invite a person</h2>
<form method="post" action="/users/invitations" class="panel" aria-labelledby="invite-person">
  ${csrfField(ctx.csrf)}
  <p class="muted">You get a link to give them yourself (this console sends no email); with it they choose their own password. It works once, for 7 days. Inviting an address again replaces its pending invitation.</p>
  <label for="email">Email</label>
  <input id="email" name="email" type="email" required value="${opts.email ?? ''}">
  <label for="role">Role</label>
  <select id="role" name="role">
    ${CONSOLE_ROLES.map((r) => html`<option value="${r}"${r === 'developer' ? html` selected` : ''}>${r}: ${ROLE_HINTS[r]}</option>`)}
  </select>
  <button type="submit">Invite</button>
</form>`,
    opts.status,
  );
}
