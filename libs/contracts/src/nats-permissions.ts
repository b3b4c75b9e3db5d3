import { eventStreamName, eventSubject } from './sessions.js';
import { EVENTS, qualify, SUBJECTS, type EventSubject, type Subject } from './subjects.js';

/**
 * Who may send what to whom over a region's NATS (docs/security.md, "NATS"): the one table from which the
 * nats-server configuration is generated (`natsServerConfig`). A subject missing from an identity's lists is
 * refused by the server, so a service may trust that a request on a subject it serves came from an identity
 * listed as calling it.
 */
export interface NatsGrant {
  /** Request subjects this identity serves (subscribes to, in its queue group). */
  serves: readonly Subject[];
  /** Request subjects this identity calls. */
  calls: readonly Subject[];
  /** Broadcast events it publishes and subscribes to (core NATS, not the stream). */
  publishes: readonly EventSubject[];
  subscribes: readonly EventSubject[];
  /** Publishes domain events to the region's event stream (`<root>.events.>`) and may create the stream. */
  eventStreamPublish?: boolean;
  /** Creates, reads and acknowledges durable consumers of the event stream (and may create the stream). */
  eventStreamConsume?: boolean;
  /** Reads the event stream with ordered (ephemeral) consumers, acknowledging nothing: tests only. */
  eventStreamRead?: boolean;
  /** Present only in the local and test configuration, never in deploy/. */
  testOnly?: boolean;
}

const S = SUBJECTS;

const HEALTH: readonly Subject[] = [S.accountsHealth, S.applicantsHealth, S.screeningHealth, S.sessionsHealth, S.webhooksHealth, S.evidenceHealth, S.idScanHealth];

/** Operator subjects: only the operator tool (tools/admin) calls them, apart from the few a service needs (see webhook-delivery). */
export const ADMIN_SUBJECTS: readonly Subject[] = [
  S.accountsOrgCreate,
  S.accountsOrgGet,
  S.accountsOrgSetTier,
  S.accountsBillingSet,
  S.accountsKeyCreate,
  S.accountsKeyRevoke,
  S.accountsKeyRotate,
  S.accountsKeyList,
  S.accountsConsoleUserCreate,
  S.accountsConsoleUserList,
  S.accountsConsoleUserGet,
  S.accountsConsoleUserUpdate,
  S.accountsConsoleUserRemove,
  S.accountsConsoleUserSignOut,
  S.accountsConsoleUserDisable,
  S.accountsConsoleUserEnable,
  S.accountsConsoleTotpBegin,
  S.accountsConsoleTotpConfirm,
  S.accountsConsoleTotpVerify,
  S.accountsConsoleTotpDisable,
  S.accountsConsoleOrgTwoFactor,
  S.accountsConsolePasswordChange,
  S.accountsConsoleLogin,
  S.accountsConsoleInvitationCreate,
  S.accountsConsoleInvitationList,
  S.accountsConsoleInvitationRevoke,
  S.accountsConsoleInvitationOpen,
  S.accountsConsoleInvitationAccept,
  S.accountsActivityRecord,
  S.accountsActivityList,
  S.sessionsEmailLog,
  S.sessionsUsage,
  S.webhookSubscriptionCreate,
  S.webhookSubscriptionList,
  S.webhookSubscriptionDisable,
  S.webhookSubscriptionRotateSecret,
  S.webhookReplay,
  S.evidenceActivityList,
  S.idScanAuditList,
  // watchlists (docs/watchlist.md)
  S.screeningListsLoadBegin,
  S.screeningListsLoadBatch,
  S.screeningListsLoadCommit,
  S.screeningListsLoadAbort,
  S.screeningListsStatus,
  // the test-data purge (docs/privacy.md)
  S.applicantsPurgeTestData,
  S.screeningPurgeTestData,
  S.sessionsPurgeTestData,
  S.webhooksPurgeTestData,
  S.evidencePurgeTestData,
  S.idScanPurgeTestData,
];

const GRANTS = {
  /** The edge: calls the services on behalf of the principal it authenticated. */
  gateway: {
    serves: [],
    calls: [
      S.accountsVerifyKey,
      S.applicantsCreate,
      S.applicantsGet,
      S.applicantsList,
      S.applicantsDsarCreate,
      S.applicantsDsarGet,
      S.applicantsErasureKeys,
      S.templatesCreate,
      S.templatesGet,
      S.templatesList,
      S.templatesUpdate,
      S.sessionsCreate,
      S.sessionsGet,
      S.sessionsList,
      S.sessionsNote,
      S.sessionsCancel,
      S.sessionsReview,
      S.sessionsDecision,
      S.sessionsCaptureResolve,
      S.sessionsCaptureGet,
      S.sessionsCaptureImageStored,
      S.sessionsCaptureSubmit,
      S.sessionsCaptureSkip,
      S.evidenceCaptureCheck,
      S.webhookAttemptsList,
      ...HEALTH,
    ],
    publishes: [],
    subscribes: [EVENTS.keyInvalidated, EVENTS.orgChanged],
  },
  accounts: {
    serves: [
      S.accountsHealth,
      S.accountsVerifyKey,
      S.accountsOrgCreate,
      S.accountsOrgGet,
      S.accountsOrgSetTier,
      S.accountsBillingSet,
      S.accountsKeyCreate,
      S.accountsKeyRevoke,
      S.accountsKeyRotate,
      S.accountsKeyList,
      S.accountsConsoleUserCreate,
      S.accountsConsoleUserList,
      S.accountsConsoleUserGet,
      S.accountsConsoleUserUpdate,
      S.accountsConsoleUserRemove,
      S.accountsConsoleUserSignOut,
      S.accountsConsoleUserDisable,
      S.accountsConsoleUserEnable,
      S.accountsConsoleTotpBegin,
      S.accountsConsoleTotpConfirm,
      S.accountsConsoleTotpVerify,
      S.accountsConsoleTotpDisable,
      S.accountsConsoleOrgTwoFactor,
      S.accountsConsolePasswordChange,
      S.accountsConsoleLogin,
      S.accountsConsoleInvitationCreate,
      S.accountsConsoleInvitationList,
      S.accountsConsoleInvitationRevoke,
      S.accountsConsoleInvitationOpen,
      S.accountsConsoleInvitationAccept,
      S.accountsActivityRecord,
      S.accountsActivityList,
      S.accountsBillingDebit,
      S.accountsBillingRefund,
    ],
    // the billing sweep asks whether a debited session was written
    calls: [S.sessionsExists],
    publishes: [EVENTS.keyInvalidated, EVENTS.orgChanged],
    subscribes: [],
  },
  applicants: {
    serves: [
      S.applicantsHealth,
      S.applicantsCreate,
      S.applicantsGet,
      S.applicantsList,
      S.applicantsDsarCreate,
      S.applicantsDsarGet,
      S.applicantsErasureKeys,
      S.applicantsPurgeTestData,
    ],
    // the steps of a data subject request
    calls: [S.sessionsPrivacyExport, S.sessionsPrivacyErase, S.evidencePrivacyExport, S.evidencePrivacyErase, S.webhooksPrivacyExport],
    publishes: [],
    subscribes: [],
  },
  screening: {
    serves: [
      S.screeningHealth,
      S.templatesCreate,
      S.templatesGet,
      S.templatesList,
      S.templatesUpdate,
      S.templatesVersion,
      S.screeningEvaluate,
      S.screeningPurgeTestData,
      S.screeningListsLoadBegin,
      S.screeningListsLoadBatch,
      S.screeningListsLoadCommit,
      S.screeningListsLoadAbort,
      S.screeningListsStatus,
      S.screeningWatchlistScreen,
    ],
    // monitoring: a list version that became current is handed to sessions (docs/watchlist.md, "Monitoring")
    calls: [S.sessionsWatchlistMonitor],
    publishes: [EVENTS.templateChanged],
    subscribes: [],
  },
  sessions: {
    serves: [
      S.sessionsHealth,
      S.sessionsCreate,
      S.sessionsGet,
      S.sessionsList,
      S.sessionsNote,
      S.sessionsCancel,
      S.sessionsReview,
      S.sessionsDecision,
      S.sessionsEmailLog,
      S.sessionsUsage,
      S.sessionsTimeline,
      S.sessionsWatchlistHits,
      S.sessionsWatchlistDecide,
      S.sessionsExists,
      S.sessionsCaptureResolve,
      S.sessionsCaptureGet,
      S.sessionsCaptureImageStored,
      S.sessionsCaptureSubmit,
      S.sessionsCaptureSkip,
      S.sessionsPrivacyExport,
      S.sessionsPrivacyErase,
      S.sessionsPurgeTestData,
      S.sessionsWatchlistMonitor,
    ],
    calls: [
      S.accountsBillingDebit,
      S.accountsBillingRefund,
      S.applicantsGet,
      S.templatesVersion,
      S.screeningEvaluate,
      S.screeningWatchlistScreen,
      S.evidenceStoreSynthetic,
      S.evidenceAvailable,
      S.evidenceCaptureImages,
      S.evidenceCaptureVerify,
    ],
    publishes: [],
    subscribes: [EVENTS.templateChanged],
    eventStreamPublish: true,
  },
  'webhook-delivery': {
    serves: [
      S.webhooksHealth,
      S.webhookAttemptsList,
      S.webhookSubscriptionCreate,
      S.webhookSubscriptionList,
      S.webhookSubscriptionDisable,
      S.webhookSubscriptionRotateSecret,
      S.webhookReplay,
      S.webhooksPrivacyExport,
      S.webhooksPurgeTestData,
    ],
    // the organization's mode and status before a delivery
    calls: [S.accountsOrgGet],
    publishes: [],
    subscribes: [],
    eventStreamConsume: true,
  },
  evidence: {
    serves: [
      S.evidenceHealth,
      S.evidenceStoreSynthetic,
      S.evidenceAvailable,
      S.evidenceActivityList,
      S.evidenceCaptureImages,
      S.evidenceCaptureVerify,
      S.evidenceCaptureCheck,
      S.evidencePrivacyExport,
      S.evidencePrivacyErase,
      S.evidencePurgeTestData,
    ],
    // whether an upload's session exists and is the caller's
    calls: [S.sessionsGet],
    publishes: [],
    subscribes: [],
  },
  'id-scan': {
    serves: [S.idScanHealth, S.idScanAuditList, S.idScanPurgeTestData],
    calls: [],
    publishes: [],
    subscribes: [],
  },
  /**
   * The region's console (docs/console.md): signs its users in and acts for them, on behalf of their organization
   * (principal-scoped subjects with a principal it builds from the user's role and chosen mode, operator subjects
   * with the user's organization in the request).
   */
  console: {
    serves: [],
    calls: [
      S.accountsOrgGet,
      S.accountsKeyCreate,
      S.accountsKeyRevoke,
      S.accountsKeyRotate,
      S.accountsKeyList,
      S.accountsConsoleUserList,
      S.accountsConsoleUserGet,
      S.accountsConsoleUserUpdate,
      S.accountsConsoleUserRemove,
      S.accountsConsoleUserSignOut,
      S.accountsConsoleUserDisable,
      S.accountsConsoleUserEnable,
      S.accountsConsoleTotpBegin,
      S.accountsConsoleTotpConfirm,
      S.accountsConsoleTotpVerify,
      S.accountsConsoleTotpDisable,
      S.accountsConsoleOrgTwoFactor,
      S.accountsConsolePasswordChange,
      S.accountsConsoleLogin,
      S.accountsConsoleInvitationCreate,
      S.accountsConsoleInvitationList,
      S.accountsConsoleInvitationRevoke,
      S.accountsConsoleInvitationOpen,
      S.accountsConsoleInvitationAccept,
      S.accountsActivityRecord,
      S.accountsActivityList,
      S.applicantsCreate,
      S.applicantsGet,
      S.applicantsList,
      S.applicantsPurgeTestData,
      S.templatesList,
      S.templatesGet,
      S.templatesCreate,
      S.screeningPurgeTestData,
      S.sessionsCreate,
      S.sessionsGet,
      S.sessionsList,
      S.sessionsNote,
      S.sessionsDecision,
      S.sessionsEmailLog,
      S.sessionsUsage,
      S.sessionsTimeline,
      S.sessionsWatchlistHits,
      S.sessionsWatchlistDecide,
      S.sessionsPurgeTestData,
      S.webhookAttemptsList,
      S.webhookSubscriptionCreate,
      S.webhookSubscriptionList,
      S.webhookSubscriptionDisable,
      S.webhookSubscriptionRotateSecret,
      S.webhookReplay,
      S.webhooksPurgeTestData,
      S.evidenceActivityList,
      // whether a verification's document back is stored, to show it to a reviewer
      S.evidenceAvailable,
      S.evidencePurgeTestData,
      S.idScanPurgeTestData,
      ...HEALTH,
    ],
    publishes: [],
    subscribes: [],
  },
  /** The operator tool (tools/admin, `npm run admin`). */
  operator: {
    serves: [],
    calls: [...ADMIN_SUBJECTS, ...HEALTH],
    publishes: [],
    subscribes: [],
  },
  /** End-to-end tests read what the stream holds. */
  'test-reader': {
    serves: [],
    calls: [],
    publishes: [],
    subscribes: [],
    eventStreamRead: true,
    testOnly: true,
  },
} as const satisfies Record<string, NatsGrant>;

export type NatsIdentity = keyof typeof GRANTS;
export const NATS_GRANTS: Readonly<Record<NatsIdentity, NatsGrant>> = GRANTS;
export const NATS_IDENTITIES = Object.keys(NATS_GRANTS) as NatsIdentity[];

/** The ports of the local stack's nats-servers (`npm start`), unless NATS_PORT_US / NATS_PORT_EU say otherwise. */
export const LOCAL_NATS_PORTS = { us: 4223, eu: 4224 } as const;

/** The inbox prefix of an identity: only it may subscribe there, so nobody else reads its replies. */
export function natsInboxPrefix(identity: string): string {
  return `_INBOX_${identity}`;
}

/** The environment variable holding an identity's NATS password, for the server (`NATS_PASSWORD_WEBHOOK_DELIVERY`). */
export function natsPasswordVariable(identity: string): string {
  return `NATS_PASSWORD_${identity.toUpperCase().replace(/-/g, '_')}`;
}

/**
 * What a NATS password must look like: the server reads it from its environment and parses it as a value of its
 * configuration language, where `123` is a number and `a//b` starts a comment; letters and digits, starting
 * with a letter, are always a string.
 */
export const NATS_PASSWORD_FORMAT = /^[A-Za-z][A-Za-z0-9]{23,}$/;

/** A new random password in `NATS_PASSWORD_FORMAT` (192 bits). */
export function newNatsPassword(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return `p${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
}

/** The subjects an identity may publish and subscribe to under a region's root (responses to requests it received aside). */
export function natsPermissions(identity: NatsIdentity, root: string): NatsPermissions {
  const g: NatsGrant = NATS_GRANTS[identity];
  const q = (s: string) => qualify(root, s);
  const stream = eventStreamName(root);
  const inbox = `${natsInboxPrefix(identity)}.>`;
  const publish = [...g.calls.map(q), ...g.publishes.map(q)];
  const subscribe = [...g.serves.map(q), ...g.subscribes.map(q)];
  const usesJetStream = g.eventStreamPublish || g.eventStreamConsume || g.eventStreamRead;
  if (usesJetStream) publish.push('$JS.API.INFO', `$JS.API.STREAM.INFO.${stream}`);
  // the first of sessions and webhook-delivery to start creates the stream
  if (g.eventStreamPublish || g.eventStreamConsume) publish.push(`$JS.API.STREAM.CREATE.${stream}`);
  if (g.eventStreamPublish) publish.push(eventSubject(root, '>'));
  if (g.eventStreamConsume || g.eventStreamRead) {
    publish.push(
      `$JS.API.CONSUMER.CREATE.${stream}`,
      `$JS.API.CONSUMER.CREATE.${stream}.>`,
      `$JS.API.CONSUMER.INFO.${stream}.>`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
    );
  }
  // No grant of `$JS.ACK.<stream>.>`: an acknowledgement is the one response allowed to each message received
  // (`allow_responses`). With an explicit grant the server never retires the response it keeps for each message
  // delivered, and slows down as they pile up (docs/decisions.md, "NATS security").
  if (g.eventStreamConsume) publish.push(`$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`);
  if (g.eventStreamRead) publish.push(`$JS.API.CONSUMER.DELETE.${stream}.>`);
  if (publish.length > 0 || usesJetStream) subscribe.push(inbox);
  return { publish: [...new Set(publish)], subscribe: [...new Set(subscribe)] };
}

export interface NatsServerConfigOptions {
  /** The region's subject root (`subjectRoot(region, prefix)`). */
  root: string;
  /** `host:port` the server listens on. */
  listen: string;
  /** JetStream store directory. */
  storeDir: string;
  /** Also grant the test-only identities (local stack and tests; never deploy/). */
  includeTestIdentities?: boolean;
  /** Identities that log in with an NKEY (public key `U…`) instead of a password. */
  nkeys?: Partial<Record<NatsIdentity, string>>;
  /** Serve TLS (and require client certificates signed by `caFile` when `verify`). */
  tls?: { certFile: string; keyFile: string; caFile?: string; verify?: boolean };
  /** Monitoring port (`/varz`, `/healthz`), when wanted. */
  httpPort?: number;
  /**
   * Clustered mode (JetStream replicas > 1): this server's name (may be a `$VARIABLE` of its environment, such as
   * the pod's name), the cluster's name, the route port's listen address and every server's route URL.
   */
  cluster?: { serverName: string; name: string; listen: string; routes: string[] };
}

const str = (s: string) => JSON.stringify(s);
const list = (xs: string[]) => `[${xs.map(str).join(', ')}]`;

/**
 * The nats-server configuration of one region: every identity of `NATS_GRANTS` with exactly its permissions.
 * Passwords are not in it: each is read from the server's environment (`$NATS_PASSWORD_<IDENTITY>`), filled
 * from the region's secrets, so the file itself grants nothing and may be shipped as a ConfigMap.
 */
export function natsServerConfig(o: NatsServerConfigOptions): string {
  const users: string[] = [];
  for (const id of NATS_IDENTITIES) {
    const g: NatsGrant = NATS_GRANTS[id];
    if (g.testOnly && !o.includeTestIdentities) continue;
    const p = natsPermissions(id, o.root);
    const login = o.nkeys?.[id] ? `nkey: ${str(o.nkeys[id]!)}` : `user: ${str(id)}, password: $${natsPasswordVariable(id)}`;
    // an empty allow list would allow everything: an identity with nothing to send or receive is denied all
    const pub = p.publish.length ? `allow: ${list(p.publish)}` : 'deny: [">"]';
    const sub = p.subscribe.length ? `allow: ${list(p.subscribe)}` : 'deny: [">"]';
    users.push(
      `    # ${id}\n    {\n      ${login}\n      permissions: {\n        publish: { ${pub} }\n        subscribe: { ${sub} }\n        allow_responses: true\n      }\n    }`,
    );
  }
  const tls = o.tls
    ? `tls {\n  cert_file: ${str(o.tls.certFile)}\n  key_file: ${str(o.tls.keyFile)}\n${o.tls.caFile ? `  ca_file: ${str(o.tls.caFile)}\n` : ''}${o.tls.verify ? '  verify: true\n' : ''}}\n`
    : '';
  return [
    `# nats-server configuration of subject root "${o.root}", generated from NATS_GRANTS (libs/contracts/src/nats-permissions.ts).`,
    '# Do not edit: change the table and regenerate (docs/security.md, "NATS").',
    `listen: ${str(o.listen)}`,
    ...(o.cluster ? [`server_name: ${o.cluster.serverName.startsWith('$') ? o.cluster.serverName : str(o.cluster.serverName)}`] : []),
    ...(o.httpPort ? [`http_port: ${o.httpPort}`] : []),
    `jetstream { store_dir: ${str(o.storeDir)} }`,
    ...(o.cluster ? [`cluster {\n  name: ${str(o.cluster.name)}\n  listen: ${str(o.cluster.listen)}\n  routes: ${list(o.cluster.routes)}\n}`] : []),
    tls.trimEnd(),
    `authorization {\n  users = [\n${users.join('\n')}\n  ]\n}`,
    '',
  ]
    .filter((l) => l !== '')
    .join('\n')
    .concat('\n');
}
