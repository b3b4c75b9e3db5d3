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
  /**
   * Those of `calls` it also makes on its own account (a job, a sweep, a data subject request's steps), after the
   * request that caused them has ended, with a principal it builds itself and nobody signed. Every other request
   * carrying a principal must carry an edge's signature of it (docs/security.md, "The bus's trust boundary").
   */
  ownAccount?: readonly Subject[];
  /** Broadcast events it publishes and subscribes to (core NATS, not the stream). */
  publishes: readonly EventSubject[];
  subscribes: readonly EventSubject[];
  /** Publishes domain events to the region's event stream (`<root>.events.>`) and may create the stream. */
  eventStreamPublish?: boolean;
  /** Creates, reads and acknowledges durable consumers of the event stream (and may create the stream). */
  eventStreamConsume?: boolean;
  /** Reads the event stream with ordered (ephemeral) consumers, acknowledging nothing: tests only. */
  eventStreamRead?: boolean;
  /**
   * Manages the event stream as an operator: reads and edits its configuration (`nats stream edit`, its replicas),
   * snapshots and restores it, reads its consumers; never deletes or purges it, never reads its messages.
   */
  eventStreamAdmin?: boolean;
  /** Present only in the local and test configuration, never in deploy/. */
  testOnly?: boolean;
}

const S = SUBJECTS;

/** Every request subject a service serves: all of those named after it (`<service>.…`), the table of SUBJECTS. */
function servedBy(service: string): readonly Subject[] {
  return Object.values(SUBJECTS).filter((s) => s.startsWith(`${service}.`));
}

const HEALTH: readonly Subject[] = [S.accountsHealth, S.applicantsHealth, S.screeningHealth, S.sessionsHealth, S.webhooksHealth, S.evidenceHealth, S.idScanHealth];

/** Operator subjects: only the operator tool (tools/admin) calls them; they take the organization in the request and no principal. */
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
      S.applicantsDsarEvidenceEntry,
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
    serves: servedBy('accounts'),
    // the billing sweep asks whether a debited session was written
    calls: [S.sessionsExists],
    ownAccount: [S.sessionsExists],
    publishes: [EVENTS.keyInvalidated, EVENTS.orgChanged],
    subscribes: [],
  },
  applicants: {
    serves: servedBy('applicants'),
    // the steps of a data subject request, run after the request that asked for it
    calls: [S.sessionsPrivacyExport, S.sessionsPrivacyErase, S.evidencePrivacyExport, S.evidencePrivacyErase, S.webhooksPrivacyExport],
    ownAccount: [S.sessionsPrivacyExport, S.sessionsPrivacyErase, S.evidencePrivacyExport, S.evidencePrivacyErase, S.webhooksPrivacyExport],
    publishes: [],
    subscribes: [],
  },
  screening: {
    serves: servedBy('screening'),
    // monitoring: a list version that became current is handed to sessions (docs/watchlist.md, "Monitoring")
    calls: [S.sessionsWatchlistMonitor],
    publishes: [EVENTS.templateChanged],
    subscribes: [],
  },
  sessions: {
    serves: servedBy('sessions'),
    calls: [
      S.accountsBillingDebit,
      S.accountsBillingRefund,
      S.applicantsGet,
      S.templatesVersion,
      S.screeningEvaluate,
      S.screeningWatchlistScreen,
      S.evidenceStoreSynthetic,
      S.evidenceAvailable,
      S.evidenceCaptureVerify,
    ],
    // the runs (jobs), the capture flow (whose requests carry a client secret's caller, not a principal), the refund
    // of a create that wrote nothing, and a data subject request's export (evidence held for its sessions); a create's
    // debit and lookups and a read's evidence forward the caller's signed principal
    ownAccount: [
      S.accountsBillingRefund,
      S.evidenceAvailable,
      S.applicantsGet,
      S.templatesVersion,
      S.screeningEvaluate,
      S.screeningWatchlistScreen,
      S.evidenceStoreSynthetic,
      S.evidenceCaptureVerify,
    ],
    publishes: [],
    subscribes: [EVENTS.templateChanged],
    eventStreamPublish: true,
  },
  'webhook-delivery': {
    serves: servedBy('webhook-delivery'),
    // whether the organization the operator names for a new subscription exists, and its region
    calls: [S.accountsOrgRegion],
    publishes: [],
    subscribes: [],
    eventStreamConsume: true,
  },
  evidence: {
    serves: servedBy('evidence'),
    // whether the session of an image request is the caller's: never a read of it, and only for the signed principal
    // of the request evidence serves (docs/security.md, "The bus's trust boundary")
    calls: [S.sessionsVisible],
    publishes: [],
    subscribes: [],
  },
  'id-scan': {
    serves: servedBy('id-scan'),
    calls: [],
    publishes: [],
    subscribes: [],
  },
  /**
   * The region's console (docs/console.md): signs its users in and acts for them. Every subject it calls for a person
   * signed in carries the principal it signs (their organization, the mode they chose, themselves and their role);
   * the few before anyone is signed in carry none. No operator subject (docs/security.md, "The bus's trust boundary").
   */
  console: {
    serves: [],
    calls: [
      // nobody signed in yet: a sign-in's password and code, an invitation by its token, a console session's person
      S.accountsConsoleSignIn,
      S.accountsConsoleSignInCode,
      S.accountsConsoleInvitationOpenByToken,
      S.accountsConsoleInvitationAcceptByToken,
      S.accountsConsoleSessionPerson,
      // the person signed in, with the principal the console signs
      S.accountsConsoleKeyList,
      S.accountsConsoleKeyCreate,
      S.accountsConsoleKeyRotate,
      S.accountsConsoleKeyRevoke,
      S.accountsConsoleTeamList,
      S.accountsConsoleTeamGet,
      S.accountsConsoleTeamRole,
      S.accountsConsoleTeamRemove,
      S.accountsConsoleTeamSignOut,
      S.accountsConsoleTeamDisable,
      S.accountsConsoleTeamEnable,
      S.accountsConsoleTeamTwoFactor,
      S.accountsConsoleTeamResetTwoFactor,
      S.accountsConsoleTeamInvite,
      S.accountsConsoleTeamInvitations,
      S.accountsConsoleTeamRevokeInvitation,
      S.accountsConsoleOwnPassword,
      S.accountsConsoleOwnSignOut,
      S.accountsConsoleOwnTotpBegin,
      S.accountsConsoleOwnTotpConfirm,
      S.accountsConsoleOwnTotpDisable,
      S.accountsConsoleActivityRecord,
      S.accountsConsoleActivityList,
      S.accountsConsoleBilling,
      S.applicantsCreate,
      S.applicantsGet,
      S.applicantsConsolePurgeTestData,
      S.applicantsConsoleNames,
      S.templatesList,
      S.templatesCreate,
      S.screeningConsolePurgeTestData,
      S.sessionsCreate,
      S.sessionsGet,
      S.sessionsConsoleList,
      S.sessionsNote,
      S.sessionsDecision,
      S.sessionsConsoleEmailLog,
      S.sessionsConsoleUsage,
      S.sessionsTimeline,
      S.sessionsWatchlistHits,
      S.sessionsWatchlistDecide,
      S.sessionsConsolePurgeTestData,
      S.webhookAttemptsList,
      S.webhooksConsoleSubscriptionCreate,
      S.webhooksConsoleSubscriptionList,
      S.webhooksConsoleSubscriptionDisable,
      S.webhooksConsoleSubscriptionRotateSecret,
      S.webhooksConsoleReplay,
      S.webhooksConsolePurgeTestData,
      S.evidenceConsoleActivityList,
      // whether a verification's document back is stored, to show it to a reviewer
      S.evidenceAvailable,
      S.evidenceConsolePurgeTestData,
      S.idScanConsolePurgeTestData,
    ],
    publishes: [],
    subscribes: [],
  },
  /** The operator tool (tools/admin, `npm run admin`), and the `nats` CLI's stream commands (docs/operations.md). */
  operator: {
    serves: [],
    calls: [...ADMIN_SUBJECTS, ...HEALTH],
    publishes: [],
    subscribes: [],
    eventStreamAdmin: true,
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

/**
 * The subjects on which a service takes a principal nobody signed: those some service calls on its own account
 * (`ownAccount`). A request on any other subject that carries a principal must carry an edge's signature of it.
 */
export const OWN_ACCOUNT_SUBJECTS: ReadonlySet<Subject> = new Set(NATS_IDENTITIES.flatMap((id) => (NATS_GRANTS[id] as NatsGrant).ownAccount ?? []));

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
  const usesJetStream = g.eventStreamPublish || g.eventStreamConsume || g.eventStreamRead || g.eventStreamAdmin;
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
  if (g.eventStreamAdmin) {
    publish.push(
      '$JS.API.STREAM.NAMES',
      '$JS.API.STREAM.LIST',
      `$JS.API.STREAM.CREATE.${stream}`,
      `$JS.API.STREAM.UPDATE.${stream}`,
      `$JS.API.STREAM.LEADER.STEPDOWN.${stream}`,
      `$JS.API.STREAM.SNAPSHOT.${stream}`,
      `$JS.API.STREAM.RESTORE.${stream}`,
      // a restore's chunks go to the subject its answer names
      `$JS.SNAPSHOT.RESTORE.${stream}.>`,
      `$JS.API.CONSUMER.NAMES.${stream}`,
      `$JS.API.CONSUMER.LIST.${stream}`,
      `$JS.API.CONSUMER.INFO.${stream}.>`,
    );
  }
  if (publish.length > 0 || usesJetStream) subscribe.push(inbox);
  return { publish: [...new Set(publish)], subscribe: [...new Set(subscribe)] };
}

const str = (s: string) => JSON.stringify(s);
const list = (xs: string[]) => `[${xs.map(str).join(', ')}]`;

/** PEM files of a nats-server's TLS: its certificate (with its chain) and key, and the CA that signs its peers'. */
export interface NatsTlsFiles {
  certFile: string;
  keyFile: string;
  caFile?: string;
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
  /** Client connections over TLS only (and with client certificates signed by `caFile` when `verify`). */
  tls?: NatsTlsFiles & { verify?: boolean };
  /** Monitoring port (`/varz`, `/healthz`), when wanted. */
  httpPort?: number;
  /**
   * Clustered mode (JetStream replicas > 1): this server's name (may be a `$VARIABLE` of its environment, such as
   * the pod's name), the cluster's name, the route port's listen address and every server's route URL.
   */
  cluster?: {
    serverName: string;
    name: string;
    listen: string;
    routes: string[];
    /** This server's route address as the others are told it (host:port, or a `$VARIABLE`), instead of its IP. */
    advertise?: string;
    /** Routes over TLS both ways: each server presents its certificate and verifies its peer's against `caFile`. */
    tls?: NatsTlsFiles & { caFile: string };
    /**
     * A route must log in as `route` with `$NATS_PASSWORD_ROUTE`. Each route URL then carries that password, so the
     * list is read from the environment (`$NATS_ROUTES`, `natsRoutesValue`), and `routes` is only named in a comment.
     */
    authorization?: boolean;
  };
  /**
   * The system account `SYS` with one user, `system` (`$NATS_PASSWORD_SYSTEM`): the operator's `nats server …`
   * commands (servers, routes, JetStream's cluster). The identities of `NATS_GRANTS` stay in the global account.
   */
  systemAccount?: boolean;
}

/** The user of the route port (`cluster.authorization`), whose password is `$NATS_PASSWORD_ROUTE`. */
export const NATS_ROUTE_USER = 'route';
/** The operator's user of the system account (`systemAccount`), whose password is `$NATS_PASSWORD_SYSTEM`. */
export const NATS_SYSTEM_USER = 'system';
export const NATS_SYSTEM_ACCOUNT = 'SYS';
/**
 * Who a client without credentials would be (`no_auth_user`) when there is a system account: a user that may use
 * no kind of connection the server serves and may do nothing, so such a client is refused at its login.
 * nats-server before 2.10.2 otherwise lets it into the global account with every right, on its own, as soon as the
 * system account has users and no other account exists (docs/decisions.md, "NATS transport").
 */
export const NATS_NOBODY_USER = 'nobody';
/** The server's environment variable holding the route URLs with their credentials (`natsRoutesValue`). */
export const NATS_ROUTES_VARIABLE = 'NATS_ROUTES';

/**
 * The value of `$NATS_ROUTES`: every route URL with the route user and `password` (a value, or a reference the
 * environment expands, such as Kubernetes' `$(NATS_PASSWORD_ROUTE)`), as a list of the configuration language.
 */
export function natsRoutesValue(routes: readonly string[], password: string): string {
  return list(routes.map((r) => r.replace(/^([a-z-]+:\/\/)/, `$1${NATS_ROUTE_USER}:${password}@`)));
}

/**
 * The nats-server configuration of one region: every identity of `NATS_GRANTS` with exactly its permissions.
 * Passwords are not in it: each is read from the server's environment (`$NATS_PASSWORD_<IDENTITY>`), filled
 * from the region's secrets, so the file itself grants nothing and may be shipped as a ConfigMap.
 */
export function natsServerConfig(o: NatsServerConfigOptions): string {
  const users: string[] = [];
  for (const id of NATS_IDENTITIES) {
    if ([NATS_ROUTE_USER, NATS_SYSTEM_USER, NATS_NOBODY_USER].includes(id)) throw new Error(`${id} is the name of a server user, not an identity`);
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
  const tlsBlock = (t: NatsTlsFiles & { verify?: boolean }, indent: string) =>
    [
      `${indent}tls {`,
      `${indent}  cert_file: ${str(t.certFile)}`,
      `${indent}  key_file: ${str(t.keyFile)}`,
      ...(t.caFile ? [`${indent}  ca_file: ${str(t.caFile)}`] : []),
      ...(t.verify ? [`${indent}  verify: true`] : []),
      `${indent}}`,
    ].join('\n');
  const c = o.cluster;
  const variable = (v: string) => (v.startsWith('$') ? v : str(v));
  const cluster = c
    ? [
        'cluster {',
        `  name: ${str(c.name)}`,
        `  listen: ${str(c.listen)}`,
        ...(c.advertise
          ? ['  # the address the other servers are told, a name its certificate carries (not the pod\'s IP); clients are told none', `  advertise: ${variable(c.advertise)}`, '  no_advertise: true']
          : []),
        ...(c.tls ? ['  # routes over TLS both ways: each server presents its certificate and verifies its peer\'s against the CA', tlsBlock({ ...c.tls, verify: true }, '  ')] : []),
        ...(c.authorization
          ? [
              `  # and log in as ${str(NATS_ROUTE_USER)}: each route URL carries the password, so the list comes from the environment:`,
              `  # ${natsRoutesValue(c.routes, '<password>')}`,
              `  authorization { user: ${str(NATS_ROUTE_USER)}, password: $${natsPasswordVariable(NATS_ROUTE_USER)} }`,
              `  routes: $${NATS_ROUTES_VARIABLE}`,
            ]
          : [`  routes: ${list(c.routes)}`]),
        '}',
      ].join('\n')
    : '';
  const system = o.systemAccount
    ? [
        `# the system account: its one user, the operator's ${str(NATS_SYSTEM_USER)}, runs \`nats server …\` (docs/operations.md, "NATS")`,
        `system_account: ${str(NATS_SYSTEM_ACCOUNT)}`,
        `accounts {\n  ${NATS_SYSTEM_ACCOUNT} { users = [ { user: ${str(NATS_SYSTEM_USER)}, password: $${natsPasswordVariable(NATS_SYSTEM_USER)} } ] }\n}`,
        '# a client without credentials is nobody, who may not connect (before 2.10.2 the server would let it in with every right)',
        `no_auth_user: ${str(NATS_NOBODY_USER)}`,
      ].join('\n')
    : '';
  if (o.systemAccount) {
    users.push(
      `    # ${NATS_NOBODY_USER}: no connection of a kind this server serves (it has no mqtt block), and nothing to send or receive\n    { user: ${str(NATS_NOBODY_USER)}, allowed_connection_types: ["MQTT"], permissions: { publish: { deny: [">"] }, subscribe: { deny: [">"] } } }`,
    );
  }
  return [
    `# nats-server configuration of subject root "${o.root}", generated from NATS_GRANTS (libs/domain/contracts/src/nats-permissions.ts).`,
    '# Do not edit: change the table and regenerate (docs/security.md, "NATS").',
    `listen: ${str(o.listen)}`,
    ...(c ? [`server_name: ${variable(c.serverName)}`] : []),
    ...(o.httpPort ? [`http_port: ${o.httpPort}`] : []),
    `jetstream { store_dir: ${str(o.storeDir)} }`,
    ...(o.tls ? [`# clients: TLS only${o.tls.verify ? ', each with a certificate signed by the CA' : ''}; each logs in as its identity`, tlsBlock(o.tls, '')] : []),
    cluster,
    system,
    '# the identities, in the global account (the event stream\'s)',
    `authorization {\n  users = [\n${users.join('\n')}\n  ]\n}`,
    '',
  ]
    .filter((l) => l !== '')
    .join('\n')
    .concat('\n');
}
