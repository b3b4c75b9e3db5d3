import { SUBJECTS, type ConsoleUser } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { consoleCookies, cookieHeader, issuesOf, type ConsoleApp, type PageContext, type PageResult } from '../app.js';
import { html } from '@verity/html';
import { badge, csrfField, notice, when } from '../layout.js';

/**
 * Your account (every role, from the bar): change your password, and sign out everywhere. Both end every session
 * of the person (their epoch moves on, docs/console.md "Your account"); a password change keeps this browser
 * signed in with a new session.
 */
export function registerAccount(app: ConsoleApp): void {
  app.get('account', '/account', (ctx) => accountPage(ctx));

  app.post('account', '/account/password', async (ctx) => {
    const current = ctx.form.get('current_password') ?? '';
    const next = ctx.form.get('new_password') ?? '';
    if (next !== (ctx.form.get('confirm_password') ?? '')) return accountPage(ctx, { error: ['The new password and its confirmation differ.'], status: 422 });
    let user: ConsoleUser;
    try {
      user = await ctx.call(SUBJECTS.accountsConsoleOwnPassword, { current_password: current, new_password: next });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return accountPage(ctx, { error: issuesOf(e), status: 422 });
      throw e;
    }
    await ctx.record('console.user.password_changed', user.id, {}, null);
    // every session ended with the change; this browser goes on with a new one
    await renewSession(ctx, user);
    return { redirect: '/account?changed=password' };
  });

  app.post('account', '/account/sign-out-everywhere', async (ctx) => {
    await ctx.call(SUBJECTS.accountsConsoleOwnSignOut, {});
    await ctx.record('console.user.signed_out_everywhere', ctx.viewer.user.id, {}, null);
    await ctx.deps.sessions.destroy(ctx.viewer.token);
    ctx.reply.header('set-cookie', cookieHeader(ctx.deps.cfg, consoleCookies(ctx.deps.cfg).session, '', 0));
    return { redirect: '/login' };
  });
}

/** After a change that ended every session of the person (their epoch moved on): this browser goes on with a new one. */
export async function renewSession(ctx: PageContext, user: ConsoleUser): Promise<void> {
  await ctx.deps.sessions.destroy(ctx.viewer.token);
  const token = await ctx.deps.sessions.create(user.id, user.org_id, user.session_epoch);
  ctx.reply.header('set-cookie', cookieHeader(ctx.deps.cfg, consoleCookies(ctx.deps.cfg).session, token, Math.floor(ctx.deps.cfg.CONSOLE_SESSION_IDLE / 1000)));
}

async function accountPage(ctx: PageContext, opts: { error?: string[]; status?: number } = {}): Promise<PageResult> {
  const { user } = ctx.viewer;
  return ctx.render(
    'Your account',
    html`${ctx.query.get('changed') === 'password' ? notice('success', html`Your password was changed. Every other session of yours has ended.`) : ''}
${opts.error ? notice('error', html`<ul>${opts.error.map((m) => html`<li>${m}</li>`)}</ul>`) : ''}
<p class="muted">Signed in as <strong>${user.email}</strong>, ${user.role} of ${ctx.viewer.org.name}, in the ${ctx.deps.cfg.REGION.toUpperCase()} region.</p>
<h2 id="password">Change your password</h2>
<form method="post" action="/account/password" class="panel" aria-labelledby="password">
  ${csrfField(ctx.csrf)}
  <label for="current_password">Current password</label>
  <input id="current_password" name="current_password" type="password" autocomplete="current-password" required>
  <label for="new_password">New password (12 characters or more)</label>
  <input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="12" required>
  <label for="confirm_password">New password again</label>
  <input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" minlength="12" required>
  <button type="submit">Change password</button>
</form>
<h2 id="two-factor">Two-factor sign-in</h2>
<div class="panel">
  <p>${user.totp_enabled_at
    ? html`${badge('on', 'ok')} since ${when(user.totp_enabled_at)}: signing in asks for a code of your authenticator app after your password.`
    : html`${badge('off')} Signing in takes your password alone. Turn it on to be asked for a code of an authenticator app too.`}</p>
  <p><a href="/account/two-factor">${user.totp_enabled_at ? 'Manage two-factor sign-in' : 'Set up two-factor sign-in'}</a></p>
</div>
<h2 id="everywhere">Sign out everywhere</h2>
<form method="post" action="/account/sign-out-everywhere" class="panel" aria-labelledby="everywhere">
  ${csrfField(ctx.csrf)}
  <p>Ends every session of yours, in every browser, this one too.</p>
  <button type="submit" class="danger">Sign out everywhere</button>
</form>`,
    opts.status,
  );
}
