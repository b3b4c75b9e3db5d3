/**
 * `deviceIntel`: the `device.*` and `fraud.*` fields of one verification, computed inside the region from what the
 * caller knows. Pure: no I/O, no clock, no randomness; the same input gives the same output, members in the same
 * order. A field that cannot be computed from the input is left out (it resolves to nothing, so rules on it do not
 * fire); nothing is guessed.
 */
import { domainLooksGenerated, emailParts, isDisposableDomain, usernameGrammarInvalid } from './email.js';
import { networkChanged, type OperatorLists } from './network.js';
import type { Signals } from './signals.js';
import { timeZoneMismatch } from './timezone.js';

/** What the server saw of the applicant's connection at one moment. */
export interface ConnectionSeen {
  ip?: string | null;
  user_agent?: string | null;
}

/** Verifications linked to this one through a shared device or document, found by the caller's bounded walk. */
export interface Ring {
  /** Verifications in the group, this one included. */
  size: number;
  /** The walk stopped at its limit: `size` is a floor. */
  truncated: boolean;
}

export interface DeviceIntelInput {
  /** `parseSignals(body.signals)`; null or undefined when the submit carried none (same as `{ absent: true }`). */
  signals?: Signals | null;
  /** The connection when the capture started (first capture request) and at submit; either may be missing. */
  connection?: { start?: ConnectionSeen | null; submit?: ConnectionSeen | null } | null;
  /** The device cookie the hosted page set, or null when the browser sent none. */
  device_id?: string | null;
  /** Verifications this device started in the organization, this one included. Needs `device_id`. */
  deviceSessions?: number | null;
  /** Distinct addresses seen for this device in the organization, this one's included. Needs `device_id`. */
  deviceDistinctIps?: number | null;
  /**
   * Other applicants of the organization whose document number (same issuing country and document type) matched
   * this one's; null or undefined when no document was read.
   */
  priorApplicantsWithDocument?: number | null;
  /** The linked group; null or undefined when the caller did not walk it. */
  ring?: Ring | null;
  email?: string | null;
  /** ISO 3166-1 alpha-2 country of the applicant's address. */
  addressCountry?: string | null;
  /** ISO 3166-1 alpha-2 country that issued the document read. */
  documentIssuingCountry?: string | null;
  /** The operator's lists (`loadLists`); a list not loaded leaves its fields absent. */
  lists?: OperatorLists | null;
}

export type VelocityFields = {
  distinctIps?: number;
  sessionCount?: number;
};

export type BehaviorFields = {
  pasteCount?: number;
  totalSeconds?: number;
  minStepSeconds?: number;
  headless?: boolean;
  collectionAbsent?: boolean;
};

export interface DeviceIntel {
  /** `fraud.<name>`: only the fields that could be computed. */
  fraud: Record<string, string | number | boolean>;
  device: { velocity: VelocityFields; behavior: BehaviorFields };
}

/**
 * Fields that need data from outside the region (an IP intelligence service, the TLS terminator, a geolocation
 * history): `deviceIntel` never sets them.
 */
export const UNCOMPUTED_FRAUD_FIELDS = [
  'threatScore',
  'country',
  'asn',
  'asOrganization',
  'asnIsDatacenter',
  'verifiedBotCategory',
  'ja4',
  'impossibleTravel',
] as const;

/** User agents of browsers under automation (headless Chrome and Edge, PhantomJS). */
const HEADLESS_UA = /\bHeadlessChrome\/|\bHeadlessEdg\/|\bPhantomJS\//;

/** Bot-score penalties (see {@link botScore}). */
export const BOT_SCORE = {
  webdriver: 60,
  headless: 50,
  /** Shortest step under 1 s. */
  stepUnder1s: 30,
  /** Shortest step from 1 s to under 2 s. */
  stepUnder2s: 15,
  /** All steps together under 5 s. */
  totalUnder5s: 20,
  /** Per paste, at most {@link BOT_SCORE.pasteMax}. */
  paste: 10,
  pasteMax: 30,
} as const;

function count(v: number | null | undefined): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

function country(v: string | null | undefined): string | undefined {
  return typeof v === 'string' && /^[A-Za-z]{2}$/.test(v) ? v.toUpperCase() : undefined;
}

function present(s: string | null | undefined): s is string {
  return typeof s === 'string' && s.trim() !== '';
}

/** Rounds to the millisecond, so that sums of step times do not carry float noise (`0.1 + 0.2`). */
function ms(n: number): number {
  return Math.round(n * 1000) / 1000;
}

interface Behavior {
  total: number | undefined;
  min: number | undefined;
  /** An automation flag or a headless user agent was seen. */
  automated: boolean;
  /** A user agent names a headless browser. */
  uaHeadless: boolean;
  /** Whether the page measured the automation flags, or a headless user agent settles it. */
  headlessKnown: boolean;
}

function behaviorOf(signals: Signals | undefined, agents: string[]): Behavior {
  const steps = signals?.stepSeconds === undefined ? undefined : Object.values(signals.stepSeconds);
  const measured = steps !== undefined && steps.length > 0;
  const uaHeadless = agents.some((ua) => HEADLESS_UA.test(ua));
  const flagged = signals?.webdriver === true || signals?.headless === true;
  return {
    total: measured ? ms(steps.reduce((a, b) => a + b, 0)) : undefined,
    min: measured ? Math.min(...steps) : undefined,
    automated: flagged || uaHeadless,
    uaHeadless,
    headlessKnown: signals?.webdriver !== undefined || signals?.headless !== undefined || uaHeadless,
  };
}

/**
 * `fraud.botScore`, 0 to 100, lower is more automated: 100 less the penalties that apply (an integer, floored at
 * 0): `webdriver` 60; `headless` flag or a headless user agent 50; shortest step under 1 s 30, or under 2 s 15;
 * all steps together under 5 s 20; 10 a paste, at most 30. Undefined when none of `webdriver`, `headless`,
 * `step_seconds` (with a step) and `paste_count` was measured and the user agent is not headless (a headless user
 * agent alone scores 50).
 */
export function botScore(signals: Signals | undefined, agents: string[]): number | undefined {
  const b = behaviorOf(signals, agents);
  const measured = signals?.webdriver !== undefined || signals?.headless !== undefined || b.min !== undefined || signals?.pasteCount !== undefined;
  if (!measured && !b.automated) return undefined;
  let penalty = 0;
  if (signals?.webdriver === true) penalty += BOT_SCORE.webdriver;
  if (signals?.headless === true || b.uaHeadless) penalty += BOT_SCORE.headless;
  if (b.min !== undefined) {
    if (b.min < 1) penalty += BOT_SCORE.stepUnder1s;
    else if (b.min < 2) penalty += BOT_SCORE.stepUnder2s;
  }
  if (b.total !== undefined && b.total < 5) penalty += BOT_SCORE.totalUnder5s;
  if (signals?.pasteCount !== undefined) penalty += Math.min(BOT_SCORE.paste * signals.pasteCount, BOT_SCORE.pasteMax);
  return Math.max(0, 100 - penalty);
}

/**
 * `fraud.deviceTouchPointMismatch`: a browser claiming `mobile` or `tablet` with no touch point. A `desktop` claim
 * is never a mismatch: touch-screen laptops exist, and an iPad's Safari claims to be a desktop Mac by default.
 * Undefined unless both the form factor and the touch points were measured.
 */
export function touchPointMismatch(signals: Signals | undefined): boolean | undefined {
  if (signals?.formFactor === undefined || signals.touchPoints === undefined) return undefined;
  return signals.formFactor !== 'desktop' && signals.touchPoints === 0;
}

/** Computes the `fraud.*` and `device.*` fields of one verification (docs/screening.md, "Device intelligence"). */
export function deviceIntel(input: DeviceIntelInput): DeviceIntel {
  const signals = input.signals ?? undefined;
  const collected = signals !== undefined && !signals.absent;
  const start = input.connection?.start ?? undefined;
  const submit = input.connection?.submit ?? undefined;
  const agents = [start?.user_agent, submit?.user_agent].filter(present);
  const ips = [start?.ip, submit?.ip].filter(present);
  const b = behaviorOf(signals, agents);

  // device.behavior
  const behavior: BehaviorFields = {};
  if (signals?.pasteCount !== undefined) behavior.pasteCount = signals.pasteCount;
  if (b.total !== undefined) behavior.totalSeconds = b.total;
  if (b.min !== undefined) behavior.minStepSeconds = b.min;
  if (b.headlessKnown) behavior.headless = b.automated;
  behavior.collectionAbsent = !collected;

  // device.velocity: only for a device the cookie identifies.
  const velocity: VelocityFields = {};
  if (present(input.device_id)) {
    const ipsSeen = count(input.deviceDistinctIps);
    const sessions = count(input.deviceSessions);
    if (ipsSeen !== undefined) velocity.distinctIps = ipsSeen;
    if (sessions !== undefined) velocity.sessionCount = sessions;
  }

  // fraud, in catalogue order.
  const fraud: Record<string, string | number | boolean> = {};
  const set = (key: string, v: string | number | boolean | undefined): void => {
    if (v !== undefined) fraud[key] = v;
  };
  set('botScore', botScore(signals, agents));

  const lists = input.lists ?? undefined;
  const tor = lists?.torExits;
  const bad = lists?.badNetworks;
  const onTor = tor !== undefined && ips.length > 0 ? ips.some((ip) => tor.has(ip)) : undefined;
  const onBad = bad !== undefined && ips.length > 0 ? ips.some((ip) => bad.has(ip)) : undefined;
  // A poor rating: a bad network, or a Tor exit (an exit node is poor whether or not a bad-network list is loaded).
  set('ipReputation', onBad === true || onTor === true ? true : onBad);
  set('ipIsTorExit', onTor);

  const prior = count(input.priorApplicantsWithDocument);
  set('repeatApplicant', prior === undefined ? undefined : prior > 0);

  const email = emailParts(input.email);
  if (email !== undefined) {
    set('emailDisposable', isDisposableDomain(email.domain));
    set('emailDomainDga', domainLooksGenerated(email.domain));
    set('emailUsernameGrammarInvalid', usernameGrammarInvalid(email.local));
  }

  const addressCountry = country(input.addressCountry);
  const issuingCountry = country(input.documentIssuingCountry);
  set('geoTimezoneMismatch', timeZoneMismatch(signals?.timeZone, addressCountry));
  set('deviceTouchPointMismatch', touchPointMismatch(signals));
  set('countryMismatch', addressCountry !== undefined && issuingCountry !== undefined ? addressCountry !== issuingCountry : undefined);

  const ring = input.ring ?? undefined;
  const ringSize = ring === undefined ? undefined : count(ring.size);
  if (ring !== undefined && ringSize !== undefined && typeof ring.truncated === 'boolean') {
    set('ringSize', ringSize);
    set('ringTruncated', ring.truncated);
  }

  const seen = (c: ConnectionSeen | undefined): boolean => present(c?.ip) || present(c?.user_agent);
  set('captureAbsent', !seen(start) && !seen(submit));
  set('networkContextChanged', networkChanged(start?.ip, submit?.ip));

  return { fraud, device: { velocity, behavior } };
}
