import type { Mode, Region } from '@verity/keys';
import type { Principal } from './principal.js';
import type * as A from './accounts.js';
import type * as C from './capture.js';
import type * as K from './console.js';
import type * as E from './evidence.js';
import type * as P from './applicants.js';
import type * as D from './privacy.js';
import type { Health } from './health.js';
import type * as S from './screening.js';
import type * as V from './sessions.js';
import type * as W from './webhooks.js';
import type * as L from './watchlist.js';

/**
 * Every subject of the system, relative to the region's root (`us`, `eu`, or a test root):
 * `<root>.<service>.<name>.v<version>`. One typed request/reply pair per subject.
 */
export const SUBJECTS = {
  accountsHealth: 'accounts.health.v1',
  accountsVerifyKey: 'accounts.keys.verify.v1',
  accountsOrgCreate: 'accounts.admin.org.create.v1',
  accountsOrgGet: 'accounts.admin.org.get.v1',
  accountsOrgSetTier: 'accounts.admin.org.set-tier.v1',
  accountsBillingSet: 'accounts.admin.billing.set.v1',
  accountsKeyCreate: 'accounts.admin.key.create.v1',
  accountsKeyRevoke: 'accounts.admin.key.revoke.v1',
  accountsKeyRotate: 'accounts.admin.key.rotate.v1',
  accountsKeyList: 'accounts.admin.key.list.v1',
  /** The console's users and its activity log (docs/console.md). */
  accountsConsoleUserCreate: 'accounts.admin.console-user.create.v1',
  accountsConsoleUserList: 'accounts.admin.console-user.list.v1',
  accountsConsoleUserGet: 'accounts.admin.console-user.get.v1',
  accountsConsoleUserUpdate: 'accounts.admin.console-user.update.v1',
  accountsConsoleUserRemove: 'accounts.admin.console-user.remove.v1',
  accountsConsoleUserSignOut: 'accounts.admin.console-user.sign-out.v1',
  accountsConsoleUserDisable: 'accounts.admin.console-user.disable.v1',
  accountsConsoleUserEnable: 'accounts.admin.console-user.enable.v1',
  accountsConsoleTotpBegin: 'accounts.admin.console-user.totp-begin.v1',
  accountsConsoleTotpConfirm: 'accounts.admin.console-user.totp-confirm.v1',
  accountsConsoleTotpVerify: 'accounts.admin.console-user.totp-verify.v1',
  accountsConsoleTotpDisable: 'accounts.admin.console-user.totp-disable.v1',
  accountsConsoleOrgTwoFactor: 'accounts.admin.console-org.two-factor.v1',
  accountsConsolePasswordChange: 'accounts.admin.console-user.password.v1',
  accountsConsoleLogin: 'accounts.admin.console-user.login.v1',
  accountsConsoleInvitationCreate: 'accounts.admin.console-invitation.create.v1',
  accountsConsoleInvitationList: 'accounts.admin.console-invitation.list.v1',
  accountsConsoleInvitationRevoke: 'accounts.admin.console-invitation.revoke.v1',
  accountsConsoleInvitationOpen: 'accounts.admin.console-invitation.open.v1',
  accountsConsoleInvitationAccept: 'accounts.admin.console-invitation.accept.v1',
  accountsActivityRecord: 'accounts.admin.activity.record.v1',
  accountsActivityList: 'accounts.admin.activity.list.v1',
  /**
   * The console, before anyone is signed in (no principal: docs/security.md, "The bus's trust boundary"): a sign-in's
   * password and code, an invitation opened and accepted by its token, and the person and organization of a console
   * session (by the user id its signed record holds).
   */
  accountsConsoleSignIn: 'accounts.console.sign-in.v1',
  accountsConsoleSignInCode: 'accounts.console.sign-in-code.v1',
  accountsConsoleInvitationOpenByToken: 'accounts.console.invitation.open.v1',
  accountsConsoleInvitationAcceptByToken: 'accounts.console.invitation.accept.v1',
  accountsConsoleSessionPerson: 'accounts.console.session-person.v1',
  /**
   * The console, for the person signed in: the organization, mode and person (`actor`) are those of the principal the
   * console signed, never a field of the request; accounts checks the person's role too (docs/console.md).
   */
  accountsConsoleKeyList: 'accounts.console.key.list.v1',
  accountsConsoleKeyCreate: 'accounts.console.key.create.v1',
  accountsConsoleKeyRotate: 'accounts.console.key.rotate.v1',
  accountsConsoleKeyRevoke: 'accounts.console.key.revoke.v1',
  accountsConsoleTeamList: 'accounts.console.team.list.v1',
  accountsConsoleTeamGet: 'accounts.console.team.get.v1',
  accountsConsoleTeamRole: 'accounts.console.team.role.v1',
  accountsConsoleTeamRemove: 'accounts.console.team.remove.v1',
  accountsConsoleTeamSignOut: 'accounts.console.team.sign-out.v1',
  accountsConsoleTeamDisable: 'accounts.console.team.disable.v1',
  accountsConsoleTeamEnable: 'accounts.console.team.enable.v1',
  accountsConsoleTeamTwoFactor: 'accounts.console.team.two-factor.v1',
  /** An owner turns another person's two-factor sign-in off (a lost phone): they enrol again if the organization requires it. */
  accountsConsoleTeamResetTwoFactor: 'accounts.console.team.reset-two-factor.v1',
  accountsConsoleTeamInvite: 'accounts.console.team.invite.v1',
  accountsConsoleTeamInvitations: 'accounts.console.team.invitations.v1',
  accountsConsoleTeamRevokeInvitation: 'accounts.console.team.revoke-invitation.v1',
  accountsConsoleOwnPassword: 'accounts.console.own.password.v1',
  accountsConsoleOwnSignOut: 'accounts.console.own.sign-out.v1',
  accountsConsoleOwnTotpBegin: 'accounts.console.own.totp-begin.v1',
  accountsConsoleOwnTotpConfirm: 'accounts.console.own.totp-confirm.v1',
  accountsConsoleOwnTotpDisable: 'accounts.console.own.totp-disable.v1',
  accountsConsoleActivityRecord: 'accounts.console.activity.record.v1',
  accountsConsoleActivityList: 'accounts.console.activity.list.v1',
  accountsConsoleBilling: 'accounts.console.billing.v1',
  /** Whether an organization exists and its region: webhook-delivery, registering a subscription the operator names. */
  accountsOrgRegion: 'accounts.org.region.v1',
  /** Billing of live session creates (docs/sessions.md, "Billing"): sessions debits before it writes, refunds what it did not write. */
  accountsBillingDebit: 'accounts.billing.debit.v1',
  accountsBillingRefund: 'accounts.billing.refund.v1',
  applicantsHealth: 'applicants.health.v1',
  applicantsCreate: 'applicants.create.v1',
  applicantsGet: 'applicants.get.v1',
  applicantsList: 'applicants.list.v1',
  /** Data subject requests (docs/privacy.md): the applicants service owns and runs them. */
  applicantsDsarCreate: 'applicants.dsar.create.v1',
  applicantsDsarGet: 'applicants.dsar.get.v1',
  applicantsDsarEvidenceEntry: 'applicants.dsar.evidence-entry.v1',
  /** The public half of the region's erasure keys (no principal: the gateway serves it without authentication). */
  applicantsErasureKeys: 'applicants.dsar.erasure-keys.v1',
  applicantsPurgeTestData: 'applicants.admin.purge-test-data.v1',
  applicantsConsolePurgeTestData: 'applicants.console.purge-test-data.v1',
  /** The console's lists: the names of a page's applicants, or the applicants whose name matches a search. */
  applicantsConsoleNames: 'applicants.console.names.v1',
  screeningHealth: 'screening.health.v1',
  templatesCreate: 'screening.templates.create.v1',
  templatesGet: 'screening.templates.get.v1',
  templatesList: 'screening.templates.list.v1',
  templatesUpdate: 'screening.templates.update.v1',
  /** The current (or a given) immutable version of a template, for a verification run. */
  templatesVersion: 'screening.templates.version.v1',
  screeningEvaluate: 'screening.evaluate.v1',
  screeningPurgeTestData: 'screening.admin.purge-test-data.v1',
  screeningConsolePurgeTestData: 'screening.console.purge-test-data.v1',
  /** Watchlists (docs/watchlist.md): the operator loads a list in batches into a new version, then commits it. */
  screeningListsLoadBegin: 'screening.admin.lists.load-begin.v1',
  screeningListsLoadBatch: 'screening.admin.lists.load-batch.v1',
  screeningListsLoadCommit: 'screening.admin.lists.load-commit.v1',
  screeningListsLoadAbort: 'screening.admin.lists.load-abort.v1',
  screeningListsStatus: 'screening.admin.lists.status.v1',
  /** The `watchlist` check of a live run: one person screened against every loaded list. */
  screeningWatchlistScreen: 'screening.watchlist.screen.v1',
  sessionsHealth: 'sessions.health.v1',
  sessionsCreate: 'sessions.create.v1',
  sessionsGet: 'sessions.get.v1',
  sessionsList: 'sessions.list.v1',
  sessionsNote: 'sessions.note.v1',
  sessionsCancel: 'sessions.cancel.v1',
  sessionsReview: 'sessions.review.v1',
  sessionsDecision: 'sessions.decision.v1',
  sessionsEmailLog: 'sessions.email-log.v1',
  /** Verifications per day, check and mode (the console's usage page). */
  sessionsUsage: 'sessions.admin.usage.v1',
  /** The console, for its signed principal's organization (and mode): usage, the email log, the test-data purge. */
  sessionsConsoleUsage: 'sessions.console.usage.v1',
  sessionsConsoleEmailLog: 'sessions.console.email-log.v1',
  sessionsConsolePurgeTestData: 'sessions.console.purge-test-data.v1',
  /** The console's verifications list and review queue: filtered by status, check, day and a set of applicants. */
  sessionsConsoleList: 'sessions.console.list.v1',
  /** A session's events and notes, oldest first (the console's verification page). */
  sessionsTimeline: 'sessions.timeline.v1',
  /** A session's watchlist hits with the reviewers' decisions on them, and one such decision (the console's verification page). */
  sessionsWatchlistHits: 'sessions.watchlist.hits.v1',
  sessionsWatchlistDecide: 'sessions.watchlist.decide.v1',
  /** Whether a session of the principal's organization and mode exists: the billing sweep of accounts asks it. */
  sessionsExists: 'sessions.exists.v1',
  /**
   * Whether a session of the caller's organization and mode exists, asked by evidence for an image request it serves:
   * the answer of `sessions.exists`, but only ever for a principal an edge signed (no service calls it on its own
   * account), so that evidence learns nothing of another organization's sessions and reads none.
   */
  sessionsVisible: 'sessions.visible.v1',
  /** The capture flow (docs/capture.md): the gateway on behalf of a client secret. */
  sessionsCaptureResolve: 'sessions.capture.resolve.v1',
  sessionsCaptureGet: 'sessions.capture.get.v1',
  sessionsCaptureImageStored: 'sessions.capture.image-stored.v1',
  sessionsCaptureSubmit: 'sessions.capture.submit.v1',
  sessionsCaptureSkip: 'sessions.capture.skip.v1',
  /** A data subject request's steps (principal of the request's key): the applicant's records, or their erasure. */
  sessionsPrivacyExport: 'sessions.privacy.export.v1',
  sessionsPrivacyErase: 'sessions.privacy.erase.v1',
  sessionsPurgeTestData: 'sessions.admin.purge-test-data.v1',
  /**
   * Monitoring (docs/watchlist.md, "Monitoring"): screening tells sessions that a version of a list became current,
   * so that approved live sessions are screened again against it. Called by screening, on its own account.
   */
  sessionsWatchlistMonitor: 'sessions.watchlist.monitor.v1',
  webhooksHealth: 'webhook-delivery.health.v1',
  webhookAttemptsList: 'webhook-delivery.attempts.list.v1',
  webhookSubscriptionCreate: 'webhook-delivery.admin.subscription.create.v1',
  webhookSubscriptionList: 'webhook-delivery.admin.subscription.list.v1',
  webhookSubscriptionDisable: 'webhook-delivery.admin.subscription.disable.v1',
  webhookSubscriptionRotateSecret: 'webhook-delivery.admin.subscription.rotate-secret.v1',
  webhookReplay: 'webhook-delivery.admin.replay.v1',
  webhooksPrivacyExport: 'webhook-delivery.privacy.export.v1',
  webhooksPurgeTestData: 'webhook-delivery.admin.purge-test-data.v1',
  /** The console, for its signed principal's organization and mode (the operator's are the `admin` ones above). */
  webhooksConsoleSubscriptionCreate: 'webhook-delivery.console.subscription.create.v1',
  webhooksConsoleSubscriptionList: 'webhook-delivery.console.subscription.list.v1',
  webhooksConsoleSubscriptionDisable: 'webhook-delivery.console.subscription.disable.v1',
  webhooksConsoleSubscriptionRotateSecret: 'webhook-delivery.console.subscription.rotate-secret.v1',
  webhooksConsoleReplay: 'webhook-delivery.console.replay.v1',
  webhooksConsolePurgeTestData: 'webhook-delivery.console.purge-test-data.v1',
  evidenceHealth: 'evidence.health.v1',
  evidenceStoreSynthetic: 'evidence.synthetic.store.v1',
  evidenceAvailable: 'evidence.available.v1',
  evidenceActivityList: 'evidence.admin.activity.list.v1',
  evidenceCaptureVerify: 'evidence.capture.verify.v1',
  evidenceCaptureCheck: 'evidence.capture.check.v1',
  evidencePrivacyExport: 'evidence.privacy.export.v1',
  evidencePrivacyErase: 'evidence.privacy.erase.v1',
  evidencePurgeTestData: 'evidence.admin.purge-test-data.v1',
  evidenceConsoleActivityList: 'evidence.console.activity.list.v1',
  evidenceConsolePurgeTestData: 'evidence.console.purge-test-data.v1',
  idScanHealth: 'id-scan.health.v1',
  idScanAuditList: 'id-scan.admin.audit.list.v1',
  idScanPurgeTestData: 'id-scan.admin.purge-test-data.v1',
  idScanConsolePurgeTestData: 'id-scan.console.purge-test-data.v1',
} as const;

/**
 * The services holding test-mode records, in the order the test-data purge runs them, runs and deliveries first
 * (docs/privacy.md): the admin CLI's `org purge-test-data` and the console's Test data page.
 */
export const TEST_DATA_PURGES = [
  ['sessions', SUBJECTS.sessionsPurgeTestData],
  ['evidence', SUBJECTS.evidencePurgeTestData],
  ['webhook-delivery', SUBJECTS.webhooksPurgeTestData],
  ['id-scan', SUBJECTS.idScanPurgeTestData],
  ['screening', SUBJECTS.screeningPurgeTestData],
  ['applicants', SUBJECTS.applicantsPurgeTestData],
] as const;

/** The same purge from the console's Test data page: each service purges the organization of the signed principal. */
export const CONSOLE_TEST_DATA_PURGES = [
  ['sessions', SUBJECTS.sessionsConsolePurgeTestData],
  ['evidence', SUBJECTS.evidenceConsolePurgeTestData],
  ['webhook-delivery', SUBJECTS.webhooksConsolePurgeTestData],
  ['id-scan', SUBJECTS.idScanConsolePurgeTestData],
  ['screening', SUBJECTS.screeningConsolePurgeTestData],
  ['applicants', SUBJECTS.applicantsConsolePurgeTestData],
] as const;

/** Broadcast events (every replica receives them; no queue group). */
export const EVENTS = {
  /** A key stopped being valid (revoked or rotated): gateways drop it from their caches. */
  keyInvalidated: 'accounts.events.key-invalidated.v1',
  /** An organization's tier, limits or billing changed: gateways drop its cached principals. */
  orgChanged: 'accounts.events.org-changed.v1',
  /** A template got a new current version: sessions drop the template's cached pin. */
  templateChanged: 'screening.events.template-changed.v1',
} as const;

export interface RpcContracts {
  [SUBJECTS.accountsHealth]: { req: Record<string, never>; res: Health };
  [SUBJECTS.accountsVerifyKey]: { req: A.VerifyKeyRequest; res: A.VerifyKeyReply };
  [SUBJECTS.accountsOrgCreate]: { req: A.OrgCreateRequest; res: A.Organization };
  [SUBJECTS.accountsOrgGet]: { req: { org_id: string }; res: A.Organization & { pricing: K.BillingPricing } };
  [SUBJECTS.accountsConsoleBilling]: { req: { days?: number }; res: K.ConsoleBilling };
  [SUBJECTS.accountsOrgSetTier]: { req: A.OrgSetTierRequest; res: A.Organization };
  [SUBJECTS.accountsBillingSet]: { req: A.BillingSetRequest; res: A.Organization };
  [SUBJECTS.accountsKeyCreate]: { req: A.KeyCreateRequest; res: A.CreatedApiKey };
  [SUBJECTS.accountsKeyRevoke]: { req: { key_id: string }; res: A.ApiKeyRecord };
  [SUBJECTS.accountsKeyRotate]: { req: { key_id: string }; res: A.CreatedApiKey };
  [SUBJECTS.accountsKeyList]: { req: K.KeyListRequest; res: { data: A.ApiKeyRecord[] } };
  [SUBJECTS.accountsConsoleUserCreate]: { req: K.ConsoleUserCreateRequest; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleUserList]: { req: { org_id: string }; res: { data: K.ConsoleUser[] } };
  [SUBJECTS.accountsConsoleUserGet]: { req: { user_id: string }; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleUserUpdate]: { req: K.ConsoleUserUpdateRequest; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleUserRemove]: { req: K.ConsoleUserRemoveRequest; res: { removed: true } };
  [SUBJECTS.accountsConsoleUserSignOut]: { req: K.ConsoleUserSignOutRequest; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleUserDisable]: { req: K.ConsoleUserDisableRequest; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleUserEnable]: { req: K.ConsoleUserDisableRequest; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleTotpBegin]: { req: K.ConsoleTotpBeginRequest; res: K.ConsoleTotpBeginReply };
  [SUBJECTS.accountsConsoleTotpConfirm]: { req: K.ConsoleTotpCodeRequest; res: K.ConsoleTotpConfirmReply };
  [SUBJECTS.accountsConsoleTotpVerify]: { req: K.ConsoleTotpCodeRequest; res: K.ConsoleTotpVerifyReply };
  [SUBJECTS.accountsConsoleTotpDisable]: { req: K.ConsoleTotpCodeRequest; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleOrgTwoFactor]: { req: K.ConsoleOrgTwoFactorRequest; res: K.ConsoleOrgTwoFactorRequest };
  [SUBJECTS.accountsConsolePasswordChange]: { req: K.ConsolePasswordChangeRequest; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleLogin]: { req: K.ConsoleLoginRequest; res: K.ConsoleLoginReply };
  [SUBJECTS.accountsConsoleInvitationCreate]: { req: K.ConsoleInvitationCreateRequest; res: K.CreatedConsoleInvitation };
  [SUBJECTS.accountsConsoleInvitationList]: { req: { org_id: string }; res: { data: K.ConsoleInvitation[] } };
  [SUBJECTS.accountsConsoleInvitationRevoke]: { req: K.ConsoleInvitationRevokeRequest; res: K.ConsoleInvitation };
  [SUBJECTS.accountsConsoleInvitationOpen]: { req: K.ConsoleInvitationOpenRequest; res: K.ConsoleInvitationOpenReply };
  [SUBJECTS.accountsConsoleInvitationAccept]: { req: K.ConsoleInvitationAcceptRequest; res: K.ConsoleInvitationAcceptReply };
  [SUBJECTS.accountsActivityRecord]: { req: K.ConsoleActivityRecordRequest; res: K.ConsoleActivityEntry };
  [SUBJECTS.accountsActivityList]: { req: K.ConsoleActivityListRequest; res: { data: K.ConsoleActivityEntry[] } };
  [SUBJECTS.accountsConsoleSignIn]: { req: K.ConsoleLoginRequest; res: K.ConsoleLoginReply };
  [SUBJECTS.accountsConsoleSignInCode]: { req: K.ConsoleTotpCodeRequest; res: K.ConsoleTotpVerifyReply };
  [SUBJECTS.accountsConsoleInvitationOpenByToken]: { req: K.ConsoleInvitationOpenRequest; res: K.ConsoleInvitationOpenReply };
  [SUBJECTS.accountsConsoleInvitationAcceptByToken]: { req: K.ConsoleInvitationAcceptRequest; res: K.ConsoleInvitationAcceptReply };
  [SUBJECTS.accountsConsoleSessionPerson]: { req: { user_id: string }; res: K.ConsoleSessionPerson };
  [SUBJECTS.accountsConsoleKeyList]: { req: Record<string, never>; res: { data: A.ApiKeyRecord[] } };
  [SUBJECTS.accountsConsoleKeyCreate]: { req: K.ConsoleKeyCreateRequest; res: A.CreatedApiKey };
  [SUBJECTS.accountsConsoleKeyRotate]: { req: { key_id: string }; res: A.CreatedApiKey };
  [SUBJECTS.accountsConsoleKeyRevoke]: { req: { key_id: string }; res: A.ApiKeyRecord };
  [SUBJECTS.accountsConsoleTeamList]: { req: Record<string, never>; res: { data: K.ConsoleUser[] } };
  [SUBJECTS.accountsConsoleTeamGet]: { req: { user_id: string }; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleTeamRole]: { req: { user_id: string; role: K.ConsoleRole }; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleTeamRemove]: { req: { user_id: string }; res: { removed: true } };
  [SUBJECTS.accountsConsoleTeamSignOut]: { req: { user_id: string }; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleTeamDisable]: { req: { user_id: string }; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleTeamEnable]: { req: { user_id: string }; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleTeamTwoFactor]: { req: { required: boolean }; res: K.ConsoleOrgTwoFactorRequest };
  [SUBJECTS.accountsConsoleTeamResetTwoFactor]: { req: { user_id: string }; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleTeamInvite]: { req: { email: string; role: K.ConsoleRole }; res: K.CreatedConsoleInvitation };
  [SUBJECTS.accountsConsoleTeamInvitations]: { req: Record<string, never>; res: { data: K.ConsoleInvitation[] } };
  [SUBJECTS.accountsConsoleTeamRevokeInvitation]: { req: { invitation_id: string }; res: K.ConsoleInvitation };
  [SUBJECTS.accountsConsoleOwnPassword]: { req: { current_password: string; new_password: string }; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleOwnSignOut]: { req: Record<string, never>; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleOwnTotpBegin]: { req: Record<string, never>; res: K.ConsoleTotpBeginReply };
  [SUBJECTS.accountsConsoleOwnTotpConfirm]: { req: { code: string }; res: K.ConsoleTotpConfirmReply };
  [SUBJECTS.accountsConsoleOwnTotpDisable]: { req: { code: string }; res: K.ConsoleUser };
  [SUBJECTS.accountsConsoleActivityRecord]: { req: K.ConsoleOwnActivityRequest; res: K.ConsoleActivityEntry };
  [SUBJECTS.accountsConsoleActivityList]: { req: { limit?: number; before?: string }; res: { data: K.ConsoleActivityEntry[] } };
  [SUBJECTS.accountsOrgRegion]: { req: { org_id: string }; res: { region: Region } };
  [SUBJECTS.accountsBillingDebit]: { req: A.BillingDebitRequest; res: A.WalletDebit };
  [SUBJECTS.accountsBillingRefund]: { req: A.BillingRefundRequest; res: A.WalletDebit };
  [SUBJECTS.applicantsHealth]: { req: Record<string, never>; res: Health };
  [SUBJECTS.applicantsCreate]: { req: { body: unknown }; res: P.Applicant };
  [SUBJECTS.applicantsGet]: { req: { id: string }; res: P.Applicant };
  [SUBJECTS.applicantsList]: { req: P.ListQuery; res: P.Page<P.Applicant> };
  [SUBJECTS.applicantsDsarCreate]: { req: { body: unknown }; res: D.DataSubjectRequest };
  [SUBJECTS.applicantsDsarGet]: { req: { id: string }; res: D.DataSubjectRequest };
  /** One entry of a completed access export's evidence (its image's place), without the rest of the export. */
  [SUBJECTS.applicantsDsarEvidenceEntry]: { req: { id: string; index: number }; res: D.DsarArtifact };
  [SUBJECTS.applicantsErasureKeys]: { req: Record<string, never>; res: D.ErasureKeySet };
  [SUBJECTS.applicantsPurgeTestData]: { req: D.PurgeTestDataRequest; res: D.PurgeTestDataReply };
  [SUBJECTS.applicantsConsolePurgeTestData]: { req: Record<string, never>; res: D.PurgeTestDataReply };
  [SUBJECTS.applicantsConsoleNames]: { req: K.ApplicantNamesRequest; res: K.ApplicantNamesReply };
  [SUBJECTS.screeningHealth]: { req: Record<string, never>; res: Health };
  [SUBJECTS.templatesCreate]: { req: { body: unknown }; res: S.WorkflowTemplate };
  [SUBJECTS.templatesGet]: { req: { id: string }; res: S.WorkflowTemplate };
  [SUBJECTS.templatesList]: { req: P.ListQuery; res: P.Page<S.WorkflowTemplate> };
  [SUBJECTS.templatesUpdate]: { req: { id: string; body: unknown }; res: S.WorkflowTemplate };
  [SUBJECTS.templatesVersion]: { req: { id: string; version?: number }; res: S.TemplateVersion };
  [SUBJECTS.screeningEvaluate]: { req: S.EvaluateRequest; res: S.EvaluateReply };
  [SUBJECTS.screeningPurgeTestData]: { req: D.PurgeTestDataRequest; res: D.PurgeTestDataReply };
  [SUBJECTS.screeningConsolePurgeTestData]: { req: Record<string, never>; res: D.PurgeTestDataReply };
  [SUBJECTS.screeningListsLoadBegin]: { req: L.WatchlistLoadBeginRequest; res: L.WatchlistLoadBeginReply };
  [SUBJECTS.screeningListsLoadBatch]: { req: L.WatchlistLoadBatchRequest; res: L.WatchlistLoadBatchReply };
  [SUBJECTS.screeningListsLoadCommit]: { req: L.WatchlistLoadCommitRequest; res: L.WatchlistLoadCommitReply };
  [SUBJECTS.screeningListsLoadAbort]: { req: L.WatchlistLoadAbortRequest; res: { abandoned: true } };
  [SUBJECTS.screeningListsStatus]: { req: Record<string, never>; res: L.WatchlistStatusReply };
  [SUBJECTS.screeningWatchlistScreen]: { req: L.WatchlistScreenRequest; res: L.WatchlistScreenReply };
  [SUBJECTS.sessionsHealth]: { req: Record<string, never>; res: Health };
  [SUBJECTS.sessionsCreate]: { req: { body: unknown }; res: V.Session };
  [SUBJECTS.sessionsGet]: { req: { id: string }; res: V.Session };
  [SUBJECTS.sessionsList]: { req: P.ListQuery; res: P.Page<V.Session> };
  [SUBJECTS.sessionsNote]: { req: { id: string; body: unknown }; res: V.Session };
  [SUBJECTS.sessionsCancel]: { req: { id: string; body: unknown }; res: V.Session };
  [SUBJECTS.sessionsReview]: { req: { id: string; body: unknown }; res: V.Session };
  [SUBJECTS.sessionsDecision]: { req: { id: string; body: unknown }; res: V.Session };
  [SUBJECTS.sessionsEmailLog]: { req: V.EmailLogRequest; res: { data: V.EmailLogEntry[] } };
  [SUBJECTS.sessionsUsage]: { req: K.UsageRequest; res: { data: K.UsageRow[] } };
  [SUBJECTS.sessionsConsoleUsage]: { req: { from: string; to: string }; res: { data: K.UsageRow[] } };
  [SUBJECTS.sessionsConsoleEmailLog]: { req: { limit?: number }; res: { data: V.EmailLogEntry[] } };
  [SUBJECTS.sessionsConsoleList]: { req: K.ConsoleSessionListRequest; res: P.Page<V.Session> };
  [SUBJECTS.sessionsConsolePurgeTestData]: { req: Record<string, never>; res: D.PurgeTestDataReply };
  [SUBJECTS.sessionsTimeline]: { req: { id: string }; res: { data: K.TimelineEntry[] } };
  [SUBJECTS.sessionsWatchlistHits]: { req: { id: string }; res: L.SessionWatchlistHitsReply };
  [SUBJECTS.sessionsWatchlistDecide]: { req: L.WatchlistHitDecideRequest; res: L.SessionWatchlistHit };
  [SUBJECTS.sessionsExists]: { req: { session_id: string }; res: { exists: boolean } };
  [SUBJECTS.sessionsVisible]: { req: { session_id: string }; res: { exists: boolean } };
  [SUBJECTS.sessionsCaptureResolve]: { req: C.CaptureResolveRequest; res: C.CaptureResolveReply };
  [SUBJECTS.sessionsCaptureGet]: { req: C.CaptureGetRequest; res: C.Capture };
  [SUBJECTS.sessionsCaptureImageStored]: { req: C.CaptureImageStoredRequest; res: C.Capture };
  [SUBJECTS.sessionsCaptureSubmit]: { req: C.CaptureSubmitRequest; res: C.Capture };
  [SUBJECTS.sessionsCaptureSkip]: { req: C.CaptureSkipRequest; res: C.Capture };
  [SUBJECTS.sessionsPrivacyExport]: { req: D.PrivacyExportRequest; res: D.SessionsExportReply };
  [SUBJECTS.sessionsPrivacyErase]: { req: D.PrivacyEraseRequest; res: D.SessionsEraseReply };
  [SUBJECTS.sessionsPurgeTestData]: { req: D.PurgeTestDataRequest; res: D.PurgeTestDataReply };
  [SUBJECTS.sessionsWatchlistMonitor]: { req: L.WatchlistMonitorRequest; res: L.WatchlistMonitorReply };
  [SUBJECTS.webhooksHealth]: { req: Record<string, never>; res: Health };
  [SUBJECTS.webhookAttemptsList]: { req: P.ListQuery; res: P.Page<W.WebhookAttempt> };
  [SUBJECTS.webhookSubscriptionCreate]: { req: W.WebhookSubscriptionCreateRequest; res: W.WebhookSubscriptionWithSecret };
  [SUBJECTS.webhookSubscriptionList]: { req: W.WebhookSubscriptionListRequest; res: P.Page<W.WebhookSubscription> };
  [SUBJECTS.webhookSubscriptionDisable]: { req: { subscription_id: string }; res: W.WebhookSubscription };
  [SUBJECTS.webhookSubscriptionRotateSecret]: { req: { subscription_id: string }; res: W.WebhookSecretRotation };
  [SUBJECTS.webhookReplay]: { req: W.WebhookReplayRequest; res: W.WebhookReplayResult };
  [SUBJECTS.webhooksPrivacyExport]: { req: D.PrivacyExportRequest; res: D.WebhooksExportReply };
  [SUBJECTS.webhooksPurgeTestData]: { req: D.PurgeTestDataRequest; res: D.PurgeTestDataReply };
  [SUBJECTS.webhooksConsoleSubscriptionCreate]: { req: { url: string; event_types: string[] }; res: W.WebhookSubscriptionWithSecret };
  [SUBJECTS.webhooksConsoleSubscriptionList]: { req: { limit?: unknown; cursor?: unknown }; res: P.Page<W.WebhookSubscription> };
  [SUBJECTS.webhooksConsoleSubscriptionDisable]: { req: { subscription_id: string }; res: W.WebhookSubscription };
  [SUBJECTS.webhooksConsoleSubscriptionRotateSecret]: { req: { subscription_id: string }; res: W.WebhookSecretRotation };
  [SUBJECTS.webhooksConsoleReplay]: { req: W.WebhookConsoleReplayRequest; res: W.WebhookReplayResult };
  [SUBJECTS.webhooksConsolePurgeTestData]: { req: Record<string, never>; res: D.PurgeTestDataReply };
  [SUBJECTS.evidenceHealth]: { req: Record<string, never>; res: Health };
  [SUBJECTS.evidenceStoreSynthetic]: { req: E.StoreSyntheticRequest; res: E.EvidenceAvailability };
  [SUBJECTS.evidenceAvailable]: { req: { session_id: string }; res: E.EvidenceHoldings };
  [SUBJECTS.evidenceActivityList]: { req: E.ActivityListRequest; res: { data: E.ActivityEntry[] } };
  [SUBJECTS.evidenceCaptureVerify]: { req: C.CaptureVerifyRequest; res: C.CaptureVerifyReply };
  [SUBJECTS.evidenceCaptureCheck]: { req: C.CaptureCheckRequest; res: C.CaptureImageCheck };
  [SUBJECTS.evidencePrivacyExport]: { req: D.PrivacyExportRequest; res: D.EvidenceExportReply };
  [SUBJECTS.evidencePrivacyErase]: { req: D.PrivacyEraseRequest; res: D.PrivacyEraseReply };
  [SUBJECTS.evidencePurgeTestData]: { req: D.PurgeTestDataRequest; res: D.PurgeTestDataReply };
  [SUBJECTS.evidenceConsoleActivityList]: { req: { limit?: number }; res: { data: E.ActivityEntry[] } };
  [SUBJECTS.evidenceConsolePurgeTestData]: { req: Record<string, never>; res: D.PurgeTestDataReply };
  [SUBJECTS.idScanHealth]: { req: Record<string, never>; res: Health };
  [SUBJECTS.idScanAuditList]: { req: E.ActivityListRequest; res: { data: E.ActivityEntry[] } };
  [SUBJECTS.idScanPurgeTestData]: { req: D.PurgeTestDataRequest; res: D.PurgeTestDataReply };
  [SUBJECTS.idScanConsolePurgeTestData]: { req: Record<string, never>; res: D.PurgeTestDataReply };
}

export type Subject = keyof RpcContracts;
export type ReqOf<S extends Subject> = RpcContracts[S]['req'];
export type ResOf<S extends Subject> = RpcContracts[S]['res'];

export interface EventContracts {
  [EVENTS.keyInvalidated]: { key_id: string; org_id: string };
  [EVENTS.orgChanged]: { org_id: string };
  [EVENTS.templateChanged]: { template_id: string; org_id: string; mode: Mode };
}
export type EventSubject = keyof EventContracts;

/** The root of a region's subjects: an optional prefix (test isolation) and the region. */
export function subjectRoot(region: string, prefix = ''): string {
  return `${prefix}${region}`;
}

export function qualify(root: string, subject: string): string {
  return `${root}.${subject}`;
}

export type { Principal };
