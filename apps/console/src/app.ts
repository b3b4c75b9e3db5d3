import { timingSafeEqual } from 'node:crypto';
import type { ConsoleUser, Organization, Principal, ReqOf, ResOf, Subject } from '@verity/contracts';
import { SUBJECTS } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { newId, type Mode } from '@verity/keys';
import type { InternalHttpClient, Logger, RpcClient } from '@verity/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { mayOpen, pageDef, scopesOf, type PageName } from './auth/roles.js';
import type { ChallengeStore, ConsoleSession, LoginLimiter, SessionStore } from './auth/session-store.js';
import type { ConsoleConfig } from './config.js';
import { html, type Html } from '@verity/html';
import { bare, layout, notice, type Frame } from './layout.js';

/**
 * The console's cookies: the session and the sign-in form's token. Served over https they carry the `__Host-`
 * prefix, which a browser accepts only from this very origin, `Secure`, with `Path=/` and no `Domain`: no other
 * host of the site (a sibling subdomain) can set or shadow them.
 */
/** A `Set-Cookie` value of the console: never readable by scripts, never sent cross-site, `Secure` over https. */
export function cookieHeader(cfg: { CONSOLE_PUBLIC_ORIGIN: string }, name: string, value: string, maxAgeS: number): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${cfg.CONSOLE_PUBLIC_ORIGIN.startsWith('https://') ? '; Secure' : ''}`;
}

export function consoleCookies(cfg: { CONSOLE_PUBLIC_ORIGIN: string }): { session: string; login: string; challenge: string } {
  const host = cfg.CONSOLE_PUBLIC_ORIGIN.startsWith('https://') ? '__Host-' : '';
  return { session: `${host}verity_console`, login: `${host}verity_console_login`, challenge: `${host}verity_console_2fa` };
}

/** What the console's pages share: its configuration, the region's services and its own state in Redis. */
export interface ConsoleDeps {
  cfg: ConsoleConfig;
  log: Logger;
  rpc: RpcClient;
  /** The region's internal HTTP (evidence images), signed as the console. */
  internalHttp: InternalHttpClient;
  redis: Redis;
  sessions: SessionStore;
  limiter: LoginLimiter;
  /** Sign-ins waiting for their two-factor code. */
  challenges: ChallengeStore;
}

/** The signed-in person behind a request, as the services know them now (role and organization re-read). */
export interface Viewer {
  user: ConsoleUser;
  org: Organization;
  session: ConsoleSession;
  token: string;
}

/** What a page answers: HTML (200 unless said), or a redirect after a change (post, then redirect, then get). */
export type PageResult = { html: string; status?: number } | { redirect: string };

/**
 * One request to a page, signed in and allowed: the person, the mode they work in, the query and (for a post)
 * the form, and the region's services called on their behalf.
 */
export class PageContext {
  readonly requestId: string;

  constructor(
    readonly deps: ConsoleDeps,
    readonly req: FastifyRequest,
    readonly reply: FastifyReply,
    readonly viewer: Viewer,
    readonly page: PageName,
  ) {
    this.requestId = String(req.id);
  }

  get mode(): Mode {
    return this.viewer.session.mode;
  }

  get orgId(): string {
    return this.viewer.org.id;
  }

  get csrf(): string {
    return this.viewer.session.csrf;
  }

  get query(): URLSearchParams {
    return new URLSearchParams((this.req.url.split('?')[1] ?? '').replace(/\+/g, '%20'));
  }

  /** The posted form (empty on a GET). */
  get form(): URLSearchParams {
    return this.req.body instanceof URLSearchParams ? this.req.body : new URLSearchParams();
  }

  /**
   * The principal the console acts with for this person, signed for each call: their organization, the mode they chose,
   * their role's scopes, and themselves with their role (`actor`), which the services check again for what they own.
   */
  principal(mode: Mode = this.mode): Principal {
    const { user, org } = this.viewer;
    return {
      org_id: org.id,
      key_id: user.id,
      key_type: 'sk',
      mode,
      region: this.deps.cfg.REGION,
      scopes: scopesOf(user.role),
      tier: org.tier,
      custom_limits: org.custom_limits,
      billing: org.billing,
      actor: { user_id: user.id, role: user.role },
    };
  }

  /**
   * Every call of a page: the service takes the organization, the mode and the person from the principal the console
   * signs, never from the request (docs/security.md, "The bus's trust boundary").
   */
  call<S extends Subject>(subject: S, payload: ReqOf<S>): Promise<ResOf<S>> {
    return this.deps.rpc.call(subject, payload, { principal: this.principal(), requestId: this.requestId });
  }

  /**
   * A call as this person in the other mode than the one they work in: every person may switch modes, so this reads
   * nothing they could not read after switching (a deep link to the other mode's verification, docs/console.md).
   */
  callInOtherMode<S extends Subject>(subject: S, payload: ReqOf<S>): Promise<ResOf<S>> {
    return this.callInMode(this.mode === 'test' ? 'live' : 'test', subject, payload);
  }

  /** A call as this person in a given mode (the Billing page reads the live templates whatever the mode shown). */
  callInMode<S extends Subject>(mode: Mode, subject: S, payload: ReqOf<S>): Promise<ResOf<S>> {
    return this.deps.rpc.call(subject, payload, { principal: this.principal(mode), requestId: this.requestId });
  }

  /** Writes a change to the organization's activity log, made by this person; a failure to log is logged, never shown. */
  async record(action: string, target_id: string | null, details: ActivityDetails = {}, mode: Mode | null = this.mode): Promise<void> {
    await this.call(SUBJECTS.accountsConsoleActivityRecord, { mode, action, target_id, details }).catch((err: unknown) =>
      this.deps.log.error({ err, action, request_id: this.requestId }, 'console activity not recorded'),
    );
  }

  /** The page in the signed-in frame. */
  render(title: string, content: Html, status = 200): PageResult {
    return { html: layout(this.frame(), title, content), status };
  }

  frame(): Frame {
    const { user, org, session } = this.viewer;
    return { region: this.deps.cfg.REGION, email: user.email, role: user.role, orgName: org.name, mode: session.mode, csrf: session.csrf, current: this.page, enrolOnly: mustEnrol(user) };
  }
}

export type ActivityDetails = Record<string, string | number | boolean | null>;

export type PageHandler = (ctx: PageContext) => Promise<PageResult>;

export interface RouteOptions {
  enrolment?: true;
}

/** Where a person who must set up two-factor sign-in is sent, from any page. */
export const ENROLMENT_PATH = '/account/two-factor';

/** Whether the person's organization requires two-factor sign-in and they have not set it up. */
export function mustEnrol(user: ConsoleUser): boolean {
  return user.totp_required && user.totp_enabled_at === null;
}

/** The console's routes: each page's handlers, behind sign-in, the page's roles and (for posts) the form checks. */
export class ConsoleApp {
  constructor(
    readonly deps: ConsoleDeps,
    readonly http: FastifyInstance,
  ) {}

  /** `enrolment`: a route a person whose organization requires two-factor sign-in may use before they set it up. */
  get(page: PageName, path: string, handler: PageHandler, opts: RouteOptions = {}): void {
    this.http.get(path, (req, reply) => this.serve(page, req, reply, handler, opts));
  }

  post(page: PageName, path: string, handler: PageHandler, opts: RouteOptions = {}): void {
    this.http.post(path, (req, reply) => this.serve(page, req, reply, handler, opts));
  }

  /** The signed-in person of a request, or null (no cookie, expired, or a user that no longer exists). */
  async viewerOf(req: FastifyRequest): Promise<Viewer | null> {
    const token = cookieOf(req, consoleCookies(this.deps.cfg).session);
    if (!token) return null;
    const session = await this.deps.sessions.get(token);
    if (!session) return null;
    // nobody is signed in to sign a principal for until this answers: the user id is the one the signed record holds
    let user: ConsoleUser;
    let org: Organization;
    try {
      ({ user, org } = await this.deps.rpc.call(SUBJECTS.accountsConsoleSessionPerson, { user_id: session.user_id }, { principal: null, requestId: String(req.id) }));
    } catch (e) {
      if (e instanceof DomainError && e.code === 'resource_not_found') {
        await this.deps.sessions.destroy(token);
        return null;
      }
      throw e;
    }
    // signed out everywhere, the password changed or the person disabled since this session was made
    if (user.session_epoch !== session.epoch || user.disabled_at !== null) {
      await this.deps.sessions.destroy(token);
      return null;
    }
    return { user, org, session, token };
  }

  private async serve(page: PageName, req: FastifyRequest, reply: FastifyReply, handler: PageHandler, opts: RouteOptions): Promise<void> {
    if (req.method === 'POST' && !sameOrigin(req, this.deps.cfg.CONSOLE_PUBLIC_ORIGIN)) return sendPage(reply, crossSitePage());
    const viewer = await this.viewerOf(req);
    if (!viewer) return sendPage(reply, { redirect: `/login?next=${encodeURIComponent(req.url)}` });
    // the organization requires two-factor sign-in and this person has not set it up: that, and nothing else
    if (mustEnrol(viewer.user) && !opts.enrolment) return sendPage(reply, { redirect: ENROLMENT_PATH });
    const ctx = new PageContext(this.deps, req, reply, viewer, page);
    if (!mayOpen(viewer.user.role, page)) return sendPage(reply, forbiddenPage(ctx));
    if (req.method === 'POST' && !tokensEqual(ctx.form.get('_csrf') ?? '', viewer.session.csrf)) return sendPage(reply, crossSitePage());
    try {
      return sendPage(reply, await handler(ctx));
    } catch (e) {
      return sendPage(reply, errorResult(ctx, e));
    }
  }
}

export function sendPage(reply: FastifyReply, r: PageResult): void {
  if ('redirect' in r) {
    void reply.code(303).header('location', r.redirect).send();
    return;
  }
  void reply
    .code(r.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(r.html);
}

/** The value of one cookie of the request. */
export function cookieOf(req: FastifyRequest, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return null;
}

export function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/**
 * A state-changing request must come from the console's own pages: its `Origin` (or, when a browser sends
 * none, its `Referer`) is the console's origin, and the browser does not call it cross-site.
 */
export function sameOrigin(req: FastifyRequest, origin: string): boolean {
  if (req.headers['sec-fetch-site'] === 'cross-site' || req.headers['sec-fetch-site'] === 'same-site') return false;
  const o = req.headers.origin;
  if (typeof o === 'string') return o === origin;
  const ref = req.headers.referer;
  return typeof ref === 'string' && (ref === origin || ref.startsWith(`${origin}/`));
}

function crossSitePage(): PageResult {
  return {
    status: 403,
    html: bare(
      'Request refused',
      html`<h1>Request refused</h1><p>This request did not come from a page of this console, so nothing was changed.</p><p><a href="/">Go to the console</a></p>`,
    ),
  };
}

function forbiddenPage(ctx: PageContext): PageResult {
  const def = pageDef(ctx.page);
  return ctx.render(
    'Not available to your role',
    html`${notice('info', html`The <strong>${def.title}</strong> page is for ${def.roles.join(', ')} roles; you are signed in as <strong>${ctx.viewer.user.role}</strong>.`)}
<p>Ask an owner of your organization if you need it. <a href="/">Back to the console</a></p>`,
    403,
  );
}

/** A refusal from a service, shown in the frame; anything unexpected is logged and shown without detail. */
function errorResult(ctx: PageContext, e: unknown): PageResult {
  if (e instanceof DomainError) {
    if (e.code === 'resource_not_found') return ctx.render('Not found', html`${notice('error', 'There is nothing here for your organization in this mode.')}<p><a href="/">Back to the console</a></p>`, 404);
    if (e.code === 'service_unavailable') return ctx.render('Try again', notice('error', 'A service of this region did not answer in time. Nothing was changed; please try again.'), 503);
    if (e.code === 'validation_error') return ctx.render('Check the form', html`${notice('error', e.message)}<p><a href="${pageDef(ctx.page).path}">Back to ${pageDef(ctx.page).title}</a></p>`, 422);
    if (e.code !== 'internal_error') return ctx.render('Not possible', notice('error', e.message), 409);
  }
  ctx.deps.log.error({ err: e, request_id: ctx.requestId }, 'console page failed');
  return ctx.render('Something went wrong', notice('error', html`Something went wrong on our side. Reference: <code>${ctx.requestId}</code>`), 500);
}

/** Refusal messages of a validation error, one per issue, for a form. */
export function issuesOf(e: DomainError): string[] {
  const issues = (e.details as { issues?: Array<{ message?: string }> } | undefined)?.issues;
  const list = Array.isArray(issues) ? issues.map((i) => i.message ?? '').filter(Boolean) : [];
  return list.length > 0 ? list : [e.message];
}

export function newRequestId(): string {
  return newId('request');
}
