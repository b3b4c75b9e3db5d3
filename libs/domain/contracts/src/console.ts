import { SCOPES, type Mode, type Scope } from '@verity/keys';
import type { Organization } from './accounts.js';
import type { CheckType } from './screening.js';

/** The console's roles (docs/console.md): what each may do is the console's own table, `CONSOLE_PAGES`. */
export const CONSOLE_ROLES = ['owner', 'admin', 'developer', 'reviewer'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/** The person a console request acts for (`Principal.actor`): signed by the console with the rest of the principal. */
export interface ConsoleActor {
  /** `usr_…`, also the principal's `key_id`. */
  user_id: string;
  role: ConsoleRole;
}

/**
 * Who may do what through the console's subjects (docs/security.md, "Console roles"): checked by the console's pages
 * and again, from the signed principal's actor, by the service that owns the data.
 */
export const CONSOLE_ACTION_ROLES = {
  /** See the organization's API keys (making and changing them is bounded by `consoleKeyScopes`). */
  keys: ['owner', 'admin', 'developer'],
  webhooks: ['owner', 'admin'],
  testData: ['owner', 'admin'],
  logs: ['owner', 'admin', 'developer'],
  usage: ['owner', 'admin'],
  /** The wallet, the prices and the live spend (the Billing page). */
  billing: ['owner', 'admin'],
  team: ['owner'],
  /** Their own account: the password, two-factor sign-in, signing out everywhere, what they did in the activity log. */
  own: CONSOLE_ROLES,
} as const satisfies Record<string, readonly ConsoleRole[]>;

/**
 * The scopes a person of `role` may give an API key of `mode`, and so whether they may create, rotate or revoke that
 * mode's keys at all. A key can do what no console page lets its maker do, so live keys are for owners and admins
 * only; a developer integrates with test keys of any scope (test mode holds synthetic data alone). Empty: none.
 */
export function consoleKeyScopes(role: ConsoleRole, mode: Mode): readonly Scope[] {
  if (role === 'owner' || role === 'admin') return SCOPES;
  if (role === 'developer' && mode === 'test') return SCOPES;
  return [];
}

/** A console session's person and their organization (`accounts.console.session-person.v1`). */
export interface ConsoleSessionPerson {
  user: ConsoleUser;
  org: Organization;
}

/** A key the person signed in makes, of the principal's organization and mode (`accounts.console.key.create.v1`). */
export interface ConsoleKeyCreateRequest {
  type: 'sk' | 'pk';
  scopes: string[];
}

/**
 * A change the person signed in made (`accounts.console.activity.record.v1`): the organization and the person are the
 * signed principal's; `mode` is null for changes that have none, else the principal's.
 */
export interface ConsoleOwnActivityRequest {
  mode: Mode | null;
  action: string;
  target_id: string | null;
  details: Record<string, string | number | boolean | null>;
}

/** A person who signs in to a region's console, as stored by accounts: never the password or its hash. */
export interface ConsoleUser {
  /** `usr_…` */
  id: string;
  object: 'console_user';
  org_id: string;
  /** Lower-cased; unique in the region. */
  email: string;
  role: ConsoleRole;
  created_at: string;
  /**
   * A console session opens pages only while the epoch it was made under is this one; signing out everywhere and
   * changing the password move it on.
   */
  session_epoch: number;
  /** When an owner disabled the person (they cannot sign in until enabled again), or null. */
  disabled_at: string | null;
  /** When the person turned two-factor sign-in on (a code after the password), or null while it is off. */
  totp_enabled_at: string | null;
  /**
   * Whether their organization requires two-factor sign-in: without it, the console lets the person set it up and
   * nothing else; with it, they cannot turn it off.
   */
  totp_required: boolean;
}

/** Operator request of `accounts.admin.console-user.create.v1` (the admin CLI; the console invites instead). */
export interface ConsoleUserCreateRequest {
  org_id: string;
  email: string;
  role: ConsoleRole;
  /** 12 to 256 characters; hashed with Argon2id, never stored or logged as given. */
  password: string;
}

/**
 * Operator request of `accounts.admin.console-user.update.v1` (the console's owner: `accounts.console.team.role.v1`, the organization the principal's): a person's new role. The
 * person must be of `org_id` (else 404); an organization always keeps an owner (the last one is refused).
 */
export interface ConsoleUserUpdateRequest {
  org_id: string;
  user_id: string;
  role: ConsoleRole;
}

/**
 * Operator request of `accounts.admin.console-user.remove.v1` (the console's: `accounts.console.team.remove.v1`): the person is deleted,
 * so their next request signs them out. The person must be of `org_id`; the last owner is refused.
 */
export interface ConsoleUserRemoveRequest {
  org_id: string;
  user_id: string;
}

/** Operator request of `accounts.admin.console-user.sign-out.v1`: every session of the person ends (the epoch moves on). */
export interface ConsoleUserSignOutRequest {
  org_id: string;
  user_id: string;
}

/**
 * Operator request of `accounts.admin.console-user.disable.v1` and `.enable.v1` (the console's: `accounts.console.team.disable.v1`, `.enable.v1`): a disabled
 * person cannot sign in, and every session of theirs ends (the epoch moves on); enabling lets them sign in again. The
 * person must be of `org_id`; the organization's last owner who is not disabled cannot be disabled.
 */
export interface ConsoleUserDisableRequest {
  org_id: string;
  user_id: string;
}

/**
 * Operator request of `accounts.admin.console-user.password.v1` (the person themself in the console: `accounts.console.own.password.v1`): the current
 * password is checked, the new one (12 to 256 characters) replaces it, and every session ends.
 */
export interface ConsolePasswordChangeRequest {
  user_id: string;
  current_password: string;
  new_password: string;
}

/** Operator request of `accounts.admin.console-user.login.v1` and the console's `accounts.console.sign-in.v1`: `user` is null for an unknown email or a wrong password alike. */
export interface ConsoleLoginRequest {
  email: string;
  password: string;
}
export interface ConsoleLoginReply {
  user: ConsoleUser | null;
}

/**
 * An invitation to the console (docs/console.md, "Team"): an owner names an address and a role; the person opens
 * the link, sets their own password and is signed in. The link's token is given once, at creation; accounts keeps
 * its SHA-256 only. Expires 7 days after it was made; used once.
 */
export interface ConsoleInvitation {
  /** `inv_…` */
  id: string;
  object: 'console_invitation';
  org_id: string;
  /** Lower-cased: the address the account will have. */
  email: string;
  role: ConsoleRole;
  /** The console user who made it (`usr_…`). */
  invited_by: string;
  created_at: string;
  expires_at: string;
  /** `pending` until accepted, revoked (or replaced by a newer invitation of the address) or past `expires_at`. */
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
}

/**
 * Operator request of `accounts.admin.console-invitation.create.v1` (the console's owner: `accounts.console.team.invite.v1`). An address in use in
 * the region is refused; a pending invitation of the same address and organization is revoked by the new one.
 */
export interface ConsoleInvitationCreateRequest {
  org_id: string;
  email: string;
  role: ConsoleRole;
  invited_by: string;
}
export interface CreatedConsoleInvitation {
  invitation: ConsoleInvitation;
  /** 256 random bits, base64url: the link's last part. Answered only here; never stored. */
  token: string;
}

/** Operator request of `accounts.admin.console-invitation.revoke.v1`: a pending invitation of `org_id` stops working. */
export interface ConsoleInvitationRevokeRequest {
  org_id: string;
  invitation_id: string;
}

/**
 * Operator request of `accounts.admin.console-invitation.open.v1` and `accounts.console.invitation.open.v1` (the invitation page): the invitation a token
 * belongs to, whatever its status, with its organization's name; 404 for a token of no invitation.
 */
export interface ConsoleInvitationOpenRequest {
  token: string;
}
export interface ConsoleInvitationOpenReply {
  invitation: ConsoleInvitation;
  org_name: string;
}

/**
 * Operator request of `accounts.admin.console-invitation.accept.v1` and `accounts.console.invitation.accept.v1`: the person's own password (12 to 256
 * characters) for a pending invitation; the account is made with the invitation's address and role, and the
 * invitation is used up, in one transaction. Refused (422 on `token`) once used, revoked or expired.
 */
export interface ConsoleInvitationAcceptRequest {
  token: string;
  password: string;
}
export interface ConsoleInvitationAcceptReply {
  user: ConsoleUser;
  invitation: ConsoleInvitation;
}

/**
 * Operator request of `accounts.admin.console-user.totp-begin.v1` (the person themself, on "Your account": `accounts.console.own.totp-begin.v1`): the
 * secret to enrol, made now or the one made less than 15 minutes ago and not yet confirmed. Refused while two-factor
 * sign-in is on. The secret is answered here and at no other time once confirmed.
 */
export interface ConsoleTotpBeginRequest {
  user_id: string;
}
export interface ConsoleTotpBeginReply {
  /** Base32, as typed into an app by hand. */
  secret: string;
  /** `otpauth://totp/…`, as scanned from a QR code. */
  uri: string;
}

/**
 * Operator request of `accounts.admin.console-user.totp-confirm.v1`: a code of the secret being enrolled turns
 * two-factor sign-in on, answers ten recovery codes (once; kept hashed) and ends every session (the epoch moves on).
 */
export interface ConsoleTotpCodeRequest {
  user_id: string;
  /** Six digits of the app; for `totp-verify` and `totp-disable` a recovery code is taken too. */
  code: string;
}
export interface ConsoleTotpConfirmReply {
  user: ConsoleUser;
  recovery_codes: string[];
}

/**
 * Operator request of `accounts.admin.console-user.totp-verify.v1` and `accounts.console.sign-in-code.v1` (the code step of a sign-in) with
 * `ConsoleTotpCodeRequest`: a code of the app, good once (a code already taken is refused until its window has
 * passed), or an unused recovery code, used up. 422 on `code` otherwise, and for a disabled person.
 */
export interface ConsoleTotpVerifyReply {
  user: ConsoleUser;
  method: 'totp' | 'recovery_code';
  /** Recovery codes not used yet. */
  recovery_codes_left: number;
}

/**
 * Operator request of `accounts.admin.console-org.two-factor.v1` (an owner on the Team page: `accounts.console.team.two-factor.v1`): whether the
 * organization requires two-factor sign-in of everyone of it in this region's console.
 */
export interface ConsoleOrgTwoFactorRequest {
  org_id: string;
  required: boolean;
}

/**
 * One change made in the console, with who made it (docs/console.md): written by the console after each change
 * succeeds. `details` holds identifiers and settings only (a key's scopes, a URL's host), never a secret.
 */
export interface ConsoleActivityRecordRequest {
  org_id: string;
  /** The mode the change was made in; null for changes that have none (a user created). */
  mode: Mode | null;
  actor_id: string;
  actor_email: string;
  /** `console.key.created`, `console.webhook.replayed`, `console.session.decided`, … */
  action: string;
  /** The changed object's id (`key_…`, `whs_…`, `ses_…`, `usr_…`), if any. */
  target_id: string | null;
  details: Record<string, string | number | boolean | null>;
}

export interface ConsoleActivityEntry extends ConsoleActivityRecordRequest {
  /** `act_…` */
  id: string;
  object: 'console_activity';
  created_at: string;
}

/** Operator request of `accounts.admin.activity.list.v1`: newest first; `before` is an entry id from the previous page. */
export interface ConsoleActivityListRequest {
  org_id: string;
  limit?: number;
  before?: string;
}

/** Operator request of `accounts.admin.key.list.v1`: the organization's keys, newest first, revoked ones too. */
export interface KeyListRequest {
  org_id: string;
  mode?: Mode;
}

/**
 * Operator request of `sessions.admin.usage.v1`: verifications created per UTC day, by check and mode, from the
 * metering counters (kept when test data is purged). `from` and `to` are `YYYY-MM-DD`, both included, at most 366 days.
 */
export interface UsageRequest {
  org_id: string;
  from: string;
  to: string;
}
export interface UsageRow {
  day: string;
  mode: Mode;
  check: CheckType;
  count: number;
}

/** One entry of a session's timeline (`sessions.timeline.v1`, principal-scoped): its events and notes, oldest first. */
export interface TimelineEntry {
  kind: 'created' | 'event' | 'note' | 'watchlist_decision';
  /** The event type for `event` entries (`kyc.session.completed`, …); `cleared` or `confirmed` for `watchlist_decision`; null otherwise. */
  type: string | null;
  /** The note's text for `note` entries; the status reached for `event` entries; the reason for `watchlist_decision`. */
  text: string | null;
  at: string;
  /** `watchlist_decision` entries: which hit, and who decided. */
  hit?: { list: string; entity_id: string; matched_name: string; decided_by: string | null };
}

/**
 * `applicants.console.names.v1`: either the names of the given applicants (a list page's, at most
 * `CONSOLE_NAMES_MAX_IDS`), or the applicants of the principal's organization and mode whose family or given name
 * starts with `search` (case and accents aside), newest first, at most `CONSOLE_NAME_SEARCH_MAX`.
 */
export interface ApplicantNamesRequest {
  ids?: string[];
  search?: string;
}

export interface ApplicantName {
  id: string;
  family_name: string;
  given_names: string[];
  erased: boolean;
}

export interface ApplicantNamesReply {
  data: ApplicantName[];
  /** A search matched more applicants than it returns: the console says to narrow it. */
  truncated: boolean;
}

export const CONSOLE_NAMES_MAX_IDS = 100;
export const CONSOLE_NAME_SEARCH_MAX = 200;

/**
 * `sessions.console.list.v1`: the sessions of the principal's organization and mode, newest first, as `sessions.list.v1`
 * pages them, filtered by status, a check (its type, and optionally its outcome), the UTC days of creation
 * (`created_from` to `created_to`, both included, `YYYY-MM-DD`) and a set of applicants (a name search's, at most
 * `CONSOLE_NAME_SEARCH_MAX`).
 */
export interface ConsoleSessionListRequest {
  status?: string;
  check?: string;
  check_outcome?: string;
  created_from?: string;
  created_to?: string;
  applicant_ids?: string[];
  limit?: number;
  cursor?: string;
}

/** What a live verification costs and in what (docs/sessions.md, "Billing"): the same for every organization of a region. */
export interface BillingPricing {
  /** ISO 4217 code of the billing currency (accounts' `BILLING_CURRENCY`). */
  currency: string;
  /** Prices, wallet balances and debits are whole minor units of `currency`: 10^digits of them make one unit. */
  minor_unit_digits: number;
  /** The price of each check, in minor units; a verification costs the sum over its template's checks. */
  check_prices: Record<CheckType, number>;
}

/** `accounts.console.billing.v1`: the Billing page of the principal's organization. */
export interface ConsoleBilling extends BillingPricing {
  wallet_balance: number | null;
  wallet_locked: boolean;
  subscription_status: string;
  /** Live debits not given back, per UTC day with any, newest first, over the `days` asked (1 to 90, default 30). */
  spend: Array<{ day: string; amount: number; verifications: number }>;
}
