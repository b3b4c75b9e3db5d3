import type { WatchlistThresholds } from './screening.js';

/**
 * Watchlists loaded into the region (docs/watchlist.md): the operator's loads over NATS, the status of each list, and
 * the screening of one person that a live run asks for.
 */

/** One listed person as the loader sends it: the list's id of it, its names (primary first), dates of birth, nationalities. */
export interface WatchlistEntityWire {
  entity_id: string;
  names: string[];
  /** `YYYY-MM-DD`, `YYYY-MM` or `YYYY`. */
  dates_of_birth: string[];
  /** ISO 3166-1 alpha-2. */
  nationalities: string[];
}

/** The operator's name of a list: lower-case letters, digits, `-` and `_`, 1 to 64 characters (`us-ofac-sdn`). */
export const WATCHLIST_ID_FORMAT = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The most entities one batch of a load carries (a batch also stays under the NATS message size). */
export const WATCHLIST_BATCH_MAX = 2000;

export interface WatchlistLoadBeginRequest {
  list: string;
  /** The published format the file was read as (`ofac-sdn`, …): shown by `lists status`. */
  format: string;
  /** The file's own name, for `lists status` (no path). */
  source: string;
}

export interface WatchlistLoadBeginReply {
  list: string;
  /** The new, not yet current version the batches go into. */
  version: number;
}

export interface WatchlistLoadBatchRequest {
  list: string;
  version: number;
  /** Ordinal of the batch's first entity in the load (0-based): a batch sent twice is stored once. */
  first_seq: number;
  entities: WatchlistEntityWire[];
}

export interface WatchlistLoadBatchReply {
  stored: number;
}

export interface WatchlistLoadCommitRequest {
  list: string;
  version: number;
  /** How many entities were sent: the commit is refused unless exactly these are stored. */
  entities: number;
  /** The publication date the file states (`YYYY-MM-DD`), if any. */
  published_on: string | null;
  /** Records of the file not loaded, counted by reason (`organization`, `vessel`, `other`, `unnamed`). */
  skipped: Record<string, number>;
}

export interface WatchlistLoadAbortRequest {
  list: string;
  version: number;
  /** Why the load stopped (the parse error), for the service's log. */
  reason: string;
}

/** One list as `lists status` shows it: its current version, and a load under way if there is one. */
export interface WatchlistStatus {
  object: 'watchlist';
  list: string;
  format: string | null;
  /** The publication date of the current version (`YYYY-MM-DD`), when its file says one. */
  published_on: string | null;
  /** Persons screened against (the current version). */
  entities: number;
  names: number;
  skipped: Record<string, number>;
  source: string | null;
  /** When the current version became current (ISO 8601); null before the first load commits. */
  loaded_at: string | null;
  version: number | null;
  /** A load started and not yet committed or abandoned. */
  loading: { version: number; started_at: string; entities: number } | null;
}

export interface WatchlistLoadCommitReply extends WatchlistStatus {
  /** Entities of the version this load replaced (0 for a first load). */
  replaced_entities: number;
}

export interface WatchlistStatusReply {
  object: 'list';
  data: WatchlistStatus[];
}

/** Why a listed person matched (docs/watchlist.md, "How matching scores"). */
export interface WatchlistMatchFeatures {
  /** The names' score before the date of birth and nationality. */
  name: number;
  /** Each word of the person's name paired with one of the listed name, and how (`exact`, `transliteration`, `phonetic`, `spelling`, `initial`). */
  pairs: Array<{ query: string; listed: string; how: string; similarity: number }>;
  unpaired: { query: number; listed: number };
  /** The paired words stand in another order (given and family names swapped). */
  reordered: boolean;
  date_of_birth: 'exact' | 'year' | 'near' | 'mismatch' | 'unknown';
  nationality: 'match' | 'mismatch' | 'unknown';
}

/** One hit: a listed person who matches the person screened at or above the review threshold. */
export interface WatchlistHit {
  list: string;
  entity_id: string;
  /** The listed name that scored best, as the list writes it. */
  matched_name: string;
  /** 0 to 1. */
  score: number;
  features: WatchlistMatchFeatures;
}

/** The person a live run screens: the names, date of birth and nationality read from the document. */
export interface WatchlistPerson {
  family_name: string;
  given_names: string[];
  /** `YYYY-MM-DD`. */
  date_of_birth?: string | null;
  /** As the document gives it (ISO 3166-1 alpha-2 or alpha-3). */
  nationality?: string | null;
}

export interface WatchlistScreenResult {
  /** Lists screened against (those with a committed version); 0 means none is loaded. */
  lists: number;
  /** The best score of any candidate (0 without one), hit or not. */
  best_score: number;
  /** Hits, best first (at most 10). */
  hits: WatchlistHit[];
}

export interface WatchlistScreenRequest {
  person: WatchlistPerson;
  /** The pinned template's `watchlist_thresholds` (a live run): each one given replaces the region's. */
  thresholds?: WatchlistThresholds;
  /** Monitoring: screen against this list only (its current version, named in the reply's `list_version`). */
  list?: string;
}

/** The `watchlist` check of a live run: its outcome by the thresholds applied (the template's, else the region's), and what made it. */
export interface WatchlistScreenReply extends WatchlistScreenResult {
  /** `pass` without a hit, `review` with one, `fail` with one at or above the fail threshold; null when no list is loaded. */
  outcome: 'pass' | 'review' | 'fail' | null;
  review_threshold: number;
  /** Null: no score fails the check by itself. */
  fail_threshold: number | null;
  /** With `list` in the request: that list's current version (null when it has none). */
  list_version?: number | null;
}

/**
 * `sessions.watchlist.monitor.v1` (docs/watchlist.md, "Monitoring"): a version of a list became current at
 * `committed_at`; sessions screens its approved live sessions of the last `WATCHLIST_MONITOR_DAYS` against it, in
 * the background. Asked again until answered; a version asked twice is monitored once.
 */
export interface WatchlistMonitorRequest {
  list: string;
  version: number;
  committed_at: string;
}

export interface WatchlistMonitorReply {
  /** False when this version was known already (asked before). */
  accepted: boolean;
}

/** A reviewer's decision on one hit (docs/watchlist.md, "Reviewing hits"): `cleared` a false positive, `confirmed` a true match. */
export type WatchlistHitOutcome = 'cleared' | 'confirmed';

export interface WatchlistHitDecision {
  outcome: WatchlistHitOutcome;
  reason: string;
  /** The console user who decided (the principal's `key_id`) and their email as the console gave it. */
  decided_by: { id: string; email: string | null };
  decided_at: string;
}

/** One hit of a session's latest run (a `watchlist_match` finding) and the decision on it, if any. */
export interface SessionWatchlistHit extends WatchlistHit {
  /** The finding's id in the run (`fnd_…`): what a decision names. */
  finding_id: string;
  decision: WatchlistHitDecision | null;
}

export interface SessionWatchlistHitsReply {
  data: SessionWatchlistHit[];
}

/** `sessions.watchlist.decide.v1`: `body` is `{ outcome, reason, reviewer_email? }`, validated by the sessions service. */
export interface WatchlistHitDecideRequest {
  id: string;
  finding_id: string;
  body: unknown;
}
