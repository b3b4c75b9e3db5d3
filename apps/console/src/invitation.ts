import { SUBJECTS, type ConsoleInvitation, type ConsoleInvitationOpenReply } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { consoleCookies, cookieHeader, cookieOf, issuesOf, sameOrigin, sendPage, tokensEqual, type ConsoleDeps, type PageResult } from './app.js';
import { newToken } from './auth/session-store.js';
import { html } from '@verity/html';
import { bare, notice, when } from './layout.js';

/** The shape of an invitation link's token (32 random bytes, base64url): anything else is not looked up. */
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

const STATUS_WORDS: Record<Exclude<ConsoleInvitation['status'], 'pending'>, string> = {
  accepted: 'was already used',
  revoked: 'was revoked',
  expired: 'has expired',
};

/**
 * The invitation page (docs/console.md, "Team"), outside sign-in: the person invited opens the link, chooses their
 * own password and is signed in. Its form carries a token that must match a short-lived cookie of its own, as the
 * sign-in form does; the link's token is in the path, which the console never logs (only the route template).
 */
export function registerInvitation(http: FastifyInstance, deps: ConsoleDeps): void {
  const { cfg } = deps;
  const cookies = consoleCookies(cfg);
  // nobody is signed in yet: the invitation's token says who, so these calls carry no principal
  const op = (req: FastifyRequest) => ({ principal: null, requestId: String(req.id) });

  const refused = (words: string, status: number): PageResult => ({
    status,
    html: bare('Invitation', html`<h1>This invitation link does not work</h1><p>It ${words}. Ask an owner of your organization for a new invitation, or <a href="/login">sign in</a> if you have an account.</p>`),
  });
  const unknown = (): PageResult => ({
    status: 404,
    html: bare('Invitation', html`<h1>This invitation link does not work</h1><p>No invitation has this link: check that it was copied whole, or ask an owner of your organization for a new one.</p>`),
  });

  const form = (opened: ConsoleInvitationOpenReply, token: string, loginToken: string, opts: { error?: string[]; status?: number } = {}): PageResult => {
    const { invitation } = opened;
    return {
      status: opts.status ?? 200,
      html: bare(
        'Join the console',
        html`<h1>Join ${opened.org_name}</h1>
<p class="muted">You are invited to the ${cfg.REGION.toUpperCase()} region's console as <strong>${invitation.role}</strong>. Choose your password: nobody else will know it. This link works once, until ${when(invitation.expires_at)}.</p>
${opts.error ? notice('error', html`<ul>${opts.error.map((m) => html`<li>${m}</li>`)}</ul>`) : ''}
<form method="post" action="/invitation/${token}">
  <input type="hidden" name="_login" value="${loginToken}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" value="${invitation.email}" readonly>
  <label for="password">Password (12 characters or more)</label>
  <input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required autofocus>
  <label for="confirm_password">Password again</label>
  <input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" minlength="12" required>
  <button type="submit">Create my account</button>
</form>`,
      ),
    };
  };

  /** The invitation of a link's token, or the page that says why it does not work. */
  const opened = async (req: FastifyRequest, token: string): Promise<ConsoleInvitationOpenReply | PageResult> => {
    if (!TOKEN_RE.test(token)) return unknown();
    try {
      const found = await deps.rpc.call(SUBJECTS.accountsConsoleInvitationOpenByToken, { token }, op(req));
      return found.invitation.status === 'pending' ? found : refused(STATUS_WORDS[found.invitation.status], 410);
    } catch (e) {
      if (e instanceof DomainError && e.code === 'resource_not_found') return unknown();
      throw e;
    }
  };

  http.get('/invitation/:token', async (req, reply) => {
    const { token } = req.params as { token: string };
    const found = await opened(req, token);
    if (!('invitation' in found)) return sendPage(reply, found);
    const loginToken = newToken();
    reply.header('set-cookie', cookieHeader(cfg, cookies.login, loginToken, 3600));
    return sendPage(reply, form(found, token, loginToken));
  });

  http.post('/invitation/:token', async (req, reply) => {
    const { token } = req.params as { token: string };
    const body = req.body instanceof URLSearchParams ? req.body : new URLSearchParams();
    if (!sameOrigin(req, cfg.CONSOLE_PUBLIC_ORIGIN) || !tokensEqual(body.get('_login') ?? '', cookieOf(req, cookies.login) ?? '')) {
      return sendPage(reply, { status: 403, html: bare('Request refused', html`<h1>Request refused</h1><p>This form did not come from this console's invitation page.</p>`) });
    }
    const found = await opened(req, token);
    if (!('invitation' in found)) return sendPage(reply, found);
    const loginToken = newToken();
    reply.header('set-cookie', cookieHeader(cfg, cookies.login, loginToken, 3600));
    const password = body.get('password') ?? '';
    if (password !== (body.get('confirm_password') ?? '')) return sendPage(reply, form(found, token, loginToken, { error: ['The password and its confirmation differ.'], status: 422 }));
    let accepted;
    try {
      accepted = await deps.rpc.call(SUBJECTS.accountsConsoleInvitationAcceptByToken, { token, password: password.slice(0, 1024) }, op(req));
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') {
        if (e.param === 'token') return sendPage(reply, refused('was already used, revoked or has expired', 410));
        return sendPage(reply, form(found, token, loginToken, { error: issuesOf(e), status: 422 }));
      }
      if (e instanceof DomainError && e.code === 'resource_not_found') return sendPage(reply, unknown());
      throw e;
    }
    // accounts logs the acceptance in the organization's activity log
    const { user } = accepted;
    const session = await deps.sessions.create(user.id, user.org_id, user.session_epoch);
    reply.header('set-cookie', [cookieHeader(cfg, cookies.login, '', 0), cookieHeader(cfg, cookies.session, session, Math.floor(cfg.CONSOLE_SESSION_IDLE / 1000))]);
    return sendPage(reply, { redirect: '/' });
  });
}
