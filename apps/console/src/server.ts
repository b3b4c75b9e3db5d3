import type { NatsConnection } from '@nats-io/transport-node';
import { SUBJECTS, subjectRoot, type ConsoleUser } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { newId } from '@verity/keys';
import { InternalHttpClient, observeHttpRequests, PrincipalSigner, routeLabel, RpcClient, type Logger } from '@verity/platform';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { ConsoleApp, consoleCookies, cookieHeader, cookieOf, ENROLMENT_PATH, mustEnrol, sameOrigin, sendPage, tokensEqual, type ConsoleDeps } from './app.js';
import { PAGES, mayOpen } from './auth/roles.js';
import { ChallengeStore, CHALLENGE_TTL_MS, LoginLimiter, newToken, SessionStore, sessionSigningKey } from './auth/session-store.js';
import type { ConsoleConfig } from './config.js';
import { html } from '@verity/html';
import { registerInvitation } from './invitation.js';
import { bare, FAVICON, FAVICON_PATH, notice, STYLESHEET_PATH } from './layout.js';
import { registerPages } from './pages/index.js';
import { STYLESHEET } from './stylesheet.js';


/**
 * Every answer: no caching of pages (they hold an organization's data), nothing framed, no script at all, and
 * nothing loaded from another origin.
 */
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** The console as a Fastify server, not yet listening: `main.ts` runs it; tests start it on a free port. */
export async function createConsole(cfg: ConsoleConfig, log: Logger, nc: NatsConnection, redis: Redis): Promise<FastifyInstance> {
  const proxies = cfg.TRUSTED_PROXIES.split(',').map((s) => s.trim()).filter(Boolean);
  const http = Fastify({
    trustProxy: proxies.length > 0 ? proxies : false,
    bodyLimit: 64 * 1024,
    genReqId: () => newId('request'),
    return503OnClosing: true,
  });
  // RED metrics, the root span and one access log line per request: the route template, never a path or a query
  observeHttpRequests(http, log, (req, status, ms) => ({ method: req.method, route: routeLabel(req.routeOptions?.url), status, duration_ms: Math.round(ms * 10) / 10, request_id: req.id }));
  const prefix = cfg.REDIS_KEY_PREFIX ?? `${cfg.REGION}:`;
  const signingKey = sessionSigningKey(cfg.INTERNAL_AUTH_SECRET);
  // the principal it acts with for a person is signed as the console's (docs/security.md, "The bus's trust boundary")
  const rpc = new RpcClient(nc, subjectRoot(cfg.REGION, cfg.NATS_SUBJECT_PREFIX), cfg.RPC_TIMEOUT_MS, { signer: new PrincipalSigner('console', cfg.PRINCIPAL_SIGNING_KEY) });
  const deps: ConsoleDeps = {
    cfg,
    log,
    rpc,
    internalHttp: new InternalHttpClient(cfg.INTERNAL_AUTH_SECRET, rpc, log, 16),
    redis,
    sessions: new SessionStore(redis, prefix, { idleMs: cfg.CONSOLE_SESSION_IDLE, maxAgeMs: cfg.CONSOLE_SESSION_MAX_AGE }, signingKey),
    challenges: new ChallengeStore(redis, prefix, signingKey),
    limiter: new LoginLimiter(redis, prefix, { perEmail: cfg.CONSOLE_LOGIN_MAX_PER_EMAIL, perIp: cfg.CONSOLE_LOGIN_MAX_PER_IP, windowMs: cfg.CONSOLE_LOGIN_WINDOW }),
  };
  const { session: sessionCookie, login: loginCookie, challenge: challengeCookie } = consoleCookies(cfg);
  const cookie = (name: string, value: string, maxAgeS: number) => cookieHeader(cfg, name, value, maxAgeS);

  http.addHook('onSend', async (_req, reply, payload) => {
    reply.headers(SECURITY_HEADERS);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
  // forms only; any other body is refused before a page sees it
  http.removeAllContentTypeParsers();
  http.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, new URLSearchParams(body as string)));
  http.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) log.error({ err, request_id: req.id }, 'console request failed');
    const text = status === 415 ? 'The console accepts its own forms only.' : status === 413 ? 'That form was too large.' : status === 500 ? 'Something went wrong on our side.' : 'That request could not be read.';
    sendPage(reply, { status, html: bare('Request refused', html`<h1>Request refused</h1><p>${text}</p><p><a href="/">Go to the console</a></p>`) });
  });
  http.setNotFoundHandler((_req, reply) => sendPage(reply, { status: 404, html: bare('Not found', html`<h1>Page not found</h1><p>There is no such page in the console.</p><p><a href="/">Go to the console</a></p>`) }));

  http.get(STYLESHEET_PATH, (_req, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(STYLESHEET));
  // the icon every page names, and the address browsers ask for when a page names none (an error page of a proxy, a PDF)
  for (const path of [FAVICON_PATH, '/favicon.ico']) {
    http.get(path, (_req, reply) => reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON));
  }

  const app = new ConsoleApp(deps, http);

  http.get('/', async (req, reply) => {
    const viewer = await app.viewerOf(req);
    if (!viewer) return sendPage(reply, { redirect: '/login' });
    const first = PAGES.find((p) => mayOpen(viewer.user.role, p.name))!;
    return sendPage(reply, { redirect: first.path });
  });

  const loginPage = (token: string, opts: { email?: string; error?: string; next?: string; status?: number } = {}) => ({
    status: opts.status ?? 200,
    html: bare(
      'Sign in',
      html`<h1>Sign in</h1>
<p class="muted">The ${cfg.REGION.toUpperCase()} region's console. Accounts are made by invitation from your organization's owner.</p>
${opts.error ? notice('error', opts.error) : ''}
<form method="post" action="/login">
  <input type="hidden" name="_login" value="${token}">
  <input type="hidden" name="next" value="${opts.next ?? '/'}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}" autofocus>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>`,
    ),
  });

  // the sign-in form carries a token that must match its own cookie (no session exists yet to hold one)
  http.get('/login', async (req, reply) => {
    const token = newToken();
    reply.header('set-cookie', cookie(loginCookie, token, 3600));
    const next = safeNext(new URLSearchParams(req.url.split('?')[1] ?? '').get('next'));
    sendPage(reply, loginPage(token, { next }));
  });

  http.post('/login', async (req: FastifyRequest, reply: FastifyReply) => {
    const form = req.body instanceof URLSearchParams ? req.body : new URLSearchParams();
    if (!sameOrigin(req, cfg.CONSOLE_PUBLIC_ORIGIN) || !tokensEqual(form.get('_login') ?? '', cookieOf(req, loginCookie) ?? '')) {
      return sendPage(reply, { status: 403, html: bare('Request refused', html`<h1>Request refused</h1><p>This sign-in did not come from this console's sign-in page.</p><p><a href="/login">Sign in</a></p>`) });
    }
    const email = (form.get('email') ?? '').trim().toLowerCase().slice(0, 254);
    const password = form.get('password') ?? '';
    const next = safeNext(form.get('next'));
    const token = newToken();
    reply.header('set-cookie', cookie(loginCookie, token, 3600));
    // counted before the password is checked (docs/console.md, "Signing in"): a burst at once gets no more checks than the limit
    const wait = await deps.limiter.admit(email, req.ip);
    if (wait > 0) {
      const minutes = Math.ceil(wait / 60_000);
      return sendPage(reply, loginPage(token, { email, next, status: 429, error: `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` }));
    }
    let user: ConsoleUser | null = null;
    if (email && password) {
      try {
        ({ user } = await deps.rpc.call(SUBJECTS.accountsConsoleSignIn, { email, password: password.slice(0, 1024) }, { principal: null, requestId: String(req.id) }));
      } catch (e) {
        // accounts checks a bounded number of passwords at once (CONSOLE_PASSWORD_CHECKS): beyond, the person retries
        if (e instanceof DomainError && e.code === 'service_unavailable') {
          reply.header('retry-after', '5');
          return sendPage(reply, loginPage(token, { email, next, status: 503, error: 'Too many sign-ins are being checked right now. Try again in a few seconds.' }));
        }
        if (!(e instanceof DomainError && e.code === 'validation_error')) throw e;
      }
    }
    if (!user) {
      return sendPage(reply, loginPage(token, { email, next, status: 401, error: 'That email and password do not match an account of this region.' }));
    }
    if (user.totp_enabled_at !== null) {
      // the code is asked next, on a page of its own bound to this browser; the attempt stays counted until the code is right
      const challenge = await deps.challenges.create({ user_id: user.id, email, epoch: user.session_epoch, next });
      reply.header('set-cookie', [cookie(loginCookie, token, 3600), cookie(challengeCookie, challenge, Math.floor(CHALLENGE_TTL_MS / 1000))]);
      return sendPage(reply, { redirect: '/login/code' });
    }
    await deps.limiter.succeeded(email, req.ip);
    const session = await deps.sessions.create(user.id, user.org_id, user.session_epoch);
    reply.header('set-cookie', [cookie(loginCookie, '', 0), cookie(sessionCookie, session, Math.floor(cfg.CONSOLE_SESSION_IDLE / 1000))]);
    // the organization requires two-factor sign-in: set it up first (every other page sends there until then)
    return sendPage(reply, { redirect: mustEnrol(user) ? ENROLMENT_PATH : next });
  });

  // the code step of a sign-in with two-factor sign-in on (docs/console.md, "Two-factor sign-in")
  const codePage = (token: string, opts: { error?: string; status?: number } = {}) => ({
    status: opts.status ?? 200,
    html: bare(
      'Two-factor sign-in',
      html`<h1>Enter your code</h1>
<p class="muted">Open your authenticator app and enter the six-digit code it shows for Verity ${cfg.REGION.toUpperCase()}. No phone at hand? Enter one of your recovery codes instead: each works once.</p>
${opts.error ? notice('error', opts.error) : ''}
<form method="post" action="/login/code">
  <input type="hidden" name="_login" value="${token}">
  <label for="code">Code from your app, or a recovery code</label>
  <input id="code" name="code" type="text" autocomplete="one-time-code" inputmode="text" spellcheck="false" required autofocus maxlength="64">
  <button type="submit">Verify</button>
</form>
<p><a href="/login">Start again</a></p>`,
    ),
  });
  const startAgain = (reply: FastifyReply, why: string) => {
    const token = newToken();
    reply.header('set-cookie', [cookie(loginCookie, token, 3600), cookie(challengeCookie, '', 0)]);
    return sendPage(reply, loginPage(token, { status: 401, error: why }));
  };

  http.get('/login/code', async (req, reply) => {
    const challenge = await deps.challenges.get(cookieOf(req, challengeCookie) ?? '');
    if (!challenge) return sendPage(reply, { redirect: '/login' });
    const token = newToken();
    reply.header('set-cookie', cookie(loginCookie, token, 3600));
    return sendPage(reply, codePage(token));
  });

  http.post('/login/code', async (req, reply) => {
    const form = req.body instanceof URLSearchParams ? req.body : new URLSearchParams();
    if (!sameOrigin(req, cfg.CONSOLE_PUBLIC_ORIGIN) || !tokensEqual(form.get('_login') ?? '', cookieOf(req, loginCookie) ?? '')) {
      return sendPage(reply, { status: 403, html: bare('Request refused', html`<h1>Request refused</h1><p>This sign-in did not come from this console's sign-in page.</p><p><a href="/login">Sign in</a></p>`) });
    }
    const challengeToken = cookieOf(req, challengeCookie) ?? '';
    const challenge = await deps.challenges.get(challengeToken);
    if (!challenge) return startAgain(reply, 'That sign-in took too long. Sign in again.');
    const token = newToken();
    reply.header('set-cookie', cookie(loginCookie, token, 3600));
    // each code tried counts as a sign-in attempt of the address, with the password's (the same limits and window)
    const wait = await deps.limiter.admit(challenge.email, req.ip);
    if (wait > 0) {
      const minutes = Math.ceil(wait / 60_000);
      return sendPage(reply, codePage(token, { status: 429, error: `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` }));
    }
    let verified;
    try {
      verified = await deps.rpc.call(SUBJECTS.accountsConsoleSignInCode, { user_id: challenge.user_id, code: (form.get('code') ?? '').slice(0, 64) }, { principal: null, requestId: String(req.id) });
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation_error') return sendPage(reply, codePage(token, { status: 401, error: 'That code is not right, or was used already. Codes change every 30 seconds.' }));
      if (e instanceof DomainError && e.code === 'resource_not_found') return startAgain(reply, 'That sign-in is no longer possible. Sign in again.');
      throw e;
    }
    const { user } = verified;
    await deps.challenges.destroy(challengeToken);
    // a new password (or signing out everywhere) since the password step ends that sign-in
    if (user.session_epoch !== challenge.epoch) return startAgain(reply, 'Your account changed meanwhile. Sign in again.');
    await deps.limiter.succeeded(challenge.email, req.ip);
    // a recovery code used is written to the activity log by accounts
    const session = await deps.sessions.create(user.id, user.org_id, user.session_epoch);
    reply.header('set-cookie', [cookie(loginCookie, '', 0), cookie(challengeCookie, '', 0), cookie(sessionCookie, session, Math.floor(cfg.CONSOLE_SESSION_IDLE / 1000))]);
    return sendPage(reply, { redirect: verified.method === 'recovery_code' ? `/account/two-factor?recovery_codes_left=${verified.recovery_codes_left}` : challenge.next });
  });

  http.post('/logout', async (req, reply) => {
    const token = cookieOf(req, sessionCookie);
    const form = req.body instanceof URLSearchParams ? req.body : new URLSearchParams();
    const session = token ? await deps.sessions.get(token) : null;
    if (!sameOrigin(req, cfg.CONSOLE_PUBLIC_ORIGIN) || (session && !tokensEqual(form.get('_csrf') ?? '', session.csrf))) {
      return sendPage(reply, { status: 403, html: bare('Request refused', html`<h1>Request refused</h1><p>This request did not come from a page of this console.</p>`) });
    }
    if (token) await deps.sessions.destroy(token);
    reply.header('set-cookie', cookie(sessionCookie, '', 0));
    return sendPage(reply, { redirect: '/login' });
  });

  // the test/live switch: every page shows it; the mode is the session's, so every tab follows it
  http.post('/mode', async (req, reply) => {
    const viewer = await app.viewerOf(req);
    const form = req.body instanceof URLSearchParams ? req.body : new URLSearchParams();
    if (!viewer) return sendPage(reply, { redirect: '/login' });
    if (!sameOrigin(req, cfg.CONSOLE_PUBLIC_ORIGIN) || !tokensEqual(form.get('_csrf') ?? '', viewer.session.csrf)) {
      return sendPage(reply, { status: 403, html: bare('Request refused', html`<h1>Request refused</h1><p>This request did not come from a page of this console.</p>`) });
    }
    const mode = form.get('mode') === 'live' ? 'live' : 'test';
    await deps.sessions.setMode(viewer.token, mode);
    // a page may name where to go (a verification of the other mode); otherwise back to the page the switch was on
    const back = safeNext(form.get('next') ?? (typeof req.headers.referer === 'string' ? new URL(req.headers.referer, cfg.CONSOLE_PUBLIC_ORIGIN).pathname : '/'));
    return sendPage(reply, { redirect: back });
  });

  registerInvitation(http, deps);
  registerPages(app);
  return http;
}

/** A redirect target after sign-in: a path of this console only, never another site. */
export function safeNext(next: string | null | undefined): string {
  return next && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) && !next.startsWith('/login') ? next : '/';
}
