import { SUBJECTS, type ConsoleTotpBeginReply } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { renderSVG } from 'uqr';
import { issuesOf, mustEnrol, type ConsoleApp, type PageContext, type PageResult } from '../app.js';
import { html, raw } from '@verity/html';
import { badge, csrfField, notice, when } from '../layout.js';
import { renewSession } from './account.js';

/**
 * Two-factor sign-in (docs/console.md, "Two-factor sign-in"), from "Your account": set it up with an authenticator
 * app (a QR code of the `otpauth://` link, or the key typed in), confirm with a code, keep the recovery codes shown
 * once; turn it off with a code. The secret and the codes are shown only on the answers to those posts.
 */
export function registerTwoFactor(app: ConsoleApp): void {
  // the three routes a person must use when their organization requires two-factor sign-in and they have not set it up
  app.get('account', '/account/two-factor', (ctx) => statusPage(ctx), { enrolment: true });

  app.post('account', '/account/two-factor/setup', async (ctx) => {
    if (ctx.viewer.user.totp_enabled_at) return { redirect: '/account/two-factor' };
    return setupPage(ctx, await ctx.call(SUBJECTS.accountsConsoleOwnTotpBegin, {}));
  }, { enrolment: true });

  app.post('account', '/account/two-factor/confirm', async (ctx) => {
    if (ctx.viewer.user.totp_enabled_at) return { redirect: '/account/two-factor' };
    let confirmed;
    try {
      confirmed = await ctx.call(SUBJECTS.accountsConsoleOwnTotpConfirm, { code: (ctx.form.get('code') ?? '').slice(0, 64) });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') {
        // the same secret again (it waits 15 minutes for its first code), with what was wrong
        return setupPage(ctx, await ctx.call(SUBJECTS.accountsConsoleOwnTotpBegin, {}), { error: issuesOf(e), status: 422 });
      }
      throw e;
    }
    const { user, recovery_codes } = confirmed;
    await ctx.record('console.user.two_factor_enabled', user.id, {}, null);
    // turning it on ended every session made with the password alone; this browser goes on with a new one
    await renewSession(ctx, user);
    return ctx.render(
      'Two-factor sign-in is on',
      html`${notice('success', 'Two-factor sign-in is on. Every other session of yours has ended; signing in now asks for a code of your app after your password.')}
<section class="panel" aria-labelledby="recovery-title">
<h2 id="recovery-title">Your recovery codes</h2>
<p>Keep these somewhere safe, apart from your phone (a password manager, a printout). If you lose your phone, each one signs you in once in place of a code. They are shown only now.</p>
<ul class="recovery-codes" data-testid="recovery-codes">${recovery_codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
</section>
<p><a href="/account">Done</a></p>`,
    );
  }, { enrolment: true });

  app.post('account', '/account/two-factor/disable', async (ctx) => {
    const { user } = ctx.viewer;
    if (!user.totp_enabled_at) return { redirect: '/account/two-factor' };
    // a code tried here counts as a sign-in attempt of the address (the same limits as the code step of a sign-in)
    const wait = await ctx.deps.limiter.admit(user.email, ctx.req.ip);
    if (wait > 0) return statusPage(ctx, { error: [`Too many wrong codes. Try again in ${Math.ceil(wait / 60_000)} minutes.`], status: 429 });
    try {
      await ctx.call(SUBJECTS.accountsConsoleOwnTotpDisable, { code: (ctx.form.get('code') ?? '').slice(0, 64) });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return statusPage(ctx, { error: [e.param === 'code' ? 'That code is not right, or was used already.' : e.message], status: 422 });
      throw e;
    }
    await ctx.deps.limiter.succeeded(user.email, ctx.req.ip);
    await ctx.record('console.user.two_factor_disabled', user.id, {}, null);
    return { redirect: '/account/two-factor?changed=off' };
  });
}

async function statusPage(ctx: PageContext, opts: { error?: string[]; status?: number } = {}): Promise<PageResult> {
  const { user } = ctx.viewer;
  const left = Number.parseInt(ctx.query.get('recovery_codes_left') ?? '', 10);
  return ctx.render(
    'Two-factor sign-in',
    html`${ctx.query.get('changed') === 'off' ? notice('success', 'Two-factor sign-in is off: signing in takes your password alone. Your recovery codes no longer work.') : ''}
${Number.isInteger(left) && left >= 0 ? notice('info', html`You signed in with a recovery code; ${left} ${left === 1 ? 'is' : 'are'} left. Lost your phone? Turn two-factor sign-in off and set it up again on the new one to get new codes.`) : ''}
${opts.error ? notice('error', html`<ul>${opts.error.map((m) => html`<li>${m}</li>`)}</ul>`) : ''}
${mustEnrol(user) ? notice('info', html`<strong>${ctx.viewer.org.name} requires two-factor sign-in.</strong> Set it up to go on: the console opens no other page until then.`) : ''}
${user.totp_enabled_at && user.totp_required
  ? html`<p>${badge('on', 'ok')} since ${when(user.totp_enabled_at)}. Signing in asks for a six-digit code of your authenticator app after your password, or one of your recovery codes.</p>
<p class="muted">${ctx.viewer.org.name} requires two-factor sign-in, so it cannot be turned off. New phone? An owner can stop requiring it for a moment, while you turn it off and set it up again on the new one.</p>`
  : user.totp_enabled_at
  ? html`<p>${badge('on', 'ok')} since ${when(user.totp_enabled_at)}. Signing in asks for a six-digit code of your authenticator app after your password, or one of your recovery codes.</p>
<h2 id="turn-off">Turn two-factor sign-in off</h2>
<form method="post" action="/account/two-factor/disable" class="panel" aria-labelledby="turn-off">
  ${csrfField(ctx.csrf)}
  <label for="code">Code from your app, or a recovery code</label>
  <input id="code" name="code" type="text" autocomplete="one-time-code" spellcheck="false" required maxlength="64">
  <button type="submit" class="danger">Turn off</button>
</form>`
  : html`<p>${badge('off')} Signing in takes your password alone. With two-factor sign-in on, it also asks for a six-digit code that an authenticator app on your phone makes every 30 seconds (any app that reads <code>otpauth://</code> links: 1Password, Google Authenticator, Authy, FreeOTP, …), so a stolen password alone opens nothing.</p>
<form method="post" action="/account/two-factor/setup" class="panel">
  ${csrfField(ctx.csrf)}
  <button type="submit">Set up two-factor sign-in</button>
</form>`}`,
    opts.status,
  );
}

/** The key in groups of four, as people type it. */
function grouped(secret: string): string {
  return secret.match(/.{1,4}/g)!.join(' ');
}

function setupPage(ctx: PageContext, begun: ConsoleTotpBeginReply, opts: { error?: string[]; status?: number } = {}): PageResult {
  // an inline SVG (markup, no script and no image request: the page policy allows both); the code writes it from the link alone
  const qr = renderSVG(begun.uri, { pixelSize: 6, whiteColor: '#ffffff', blackColor: '#000000' });
  return ctx.render(
    'Set up two-factor sign-in',
    html`${opts.error ? notice('error', html`<ul>${opts.error.map((m) => html`<li>${m}</li>`)}</ul>`) : ''}
<ol class="steps">
<li><p><strong>Scan this code</strong> with your authenticator app.</p>
<div class="qr" role="img" aria-label="QR code of the two-factor sign-in link">${raw(qr)}</div>
<p class="muted">Cannot scan? Add an account by hand with this key (time-based, 6 digits, 30 seconds):</p>
<code class="secret" data-testid="totp-secret">${grouped(begun.secret)}</code>
<details><summary>The setup link</summary><code class="secret" data-testid="totp-uri">${begun.uri}</code></details>
<p class="muted">This key is shown only while you set up; once confirmed, nobody can see it again, you neither.</p></li>
<li><p><strong>Enter the code</strong> the app now shows for Verity ${ctx.deps.cfg.REGION.toUpperCase()}.</p>
<form method="post" action="/account/two-factor/confirm" class="panel">
  ${csrfField(ctx.csrf)}
  <label for="code">Six-digit code</label>
  <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7" required>
  <button type="submit">Turn on</button>
</form></li>
</ol>
<p><a href="/account">Cancel</a></p>`,
    opts.status,
  );
}
