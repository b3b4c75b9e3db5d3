import { createHmac } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import {
  SUBJECTS,
  type Applicant,
  type CaptureVerifyReply,
  type CaptureVerifyRequest,
  type ChallengeStep,
  type EvaluationContextWire,
  type Idv,
  type Principal,
  type TemplateVersion,
  type WatchlistPerson,
  type WatchlistScreenReply,
  type WatchlistScreenRequest,
} from '@verity/contracts';
import { deviceCheckOutcome, deviceIntel, loadLists, parseSignals, type DeviceIntel, type OperatorLists, type Signals } from '@verity/device-intel';
import { newId } from '@verity/keys';
import { CONFIG, RpcClient, type Queryable } from '@verity/platform';
import type { SessionsConfig } from '../config.js';
import { SessionsRepository, type SessionRow } from '../sessions/sessions.repository.js';
import { challengeSteps } from '../capture/challenge.js';
import { compareApplicant, judgeDocument, policyOf, type ApplicantComparison } from './policy.js';
import { screeningContext } from './screening-context.js';
import { hasIdentityCheck, type CheckResult } from './synthetic.js';

/** The reason of a check that needs what the region has not configured (a data provider, signing). */
export const NOT_CONFIGURED = 'provider_not_configured';
/** The reason of a `watchlist` check with a hit: a listed person scored at or above the review threshold. */
export const WATCHLIST_HIT = 'watchlist_hit';

type Finding = EvaluationContextWire['findings'][number];

/** Verifications a ring walk visits at most; a larger group is reported as truncated. */
export const RING_WALK_LIMIT = 50;
/**
 * Bits at most between two selfie fingerprints of one picture (re-encoded, rescaled, mirrored, re-lit: 0–4 measured;
 * another person's about 36 apart; docs/reading.md, "A selfie seen before").
 */
export const SELFIE_SEEN_BITS = 6;

/** What a live run found, before screening and the resting status. */
export interface LiveFindings {
  checks: CheckResult[];
  idv: Idv | null;
  context: EvaluationContextWire;
  /** The watchlist check's hits (stored with the run, read by screening rules). */
  findings: Finding[];
}

/**
 * The reading half of a live run (docs/capture.md): the region's reader reads the capture, stores its evidence and
 * judges `document`, `face_match` and `liveness`; device intelligence is computed from what the capture saw and
 * the organization's history; a check needing a data provider the region has not configured ends `error`; and
 * the screening context carries the names read from the document. Its calls come first; then it writes only the
 * run's device, document and selfie history through `q` (no transaction: each statement is idempotent, so a run tried
 * again notes nothing twice).
 */
@Injectable()
export class LiveRun implements OnApplicationBootstrap {
  private lists: OperatorLists = {};

  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    private readonly repo: SessionsRepository,
    @Inject(CONFIG) private readonly cfg: SessionsConfig,
  ) {}

  /** The operator's address lists (Tor exits, bad networks), read once; a bad file stops the start, naming its line. */
  async onApplicationBootstrap(): Promise<void> {
    this.lists = await loadLists({ torExitFile: this.cfg.TOR_EXIT_LIST_FILE ?? null, badNetworksFile: this.cfg.BAD_NETWORKS_LIST_FILE ?? null });
  }

  async findings(q: Queryable, s: SessionRow, principal: Principal): Promise<LiveFindings> {
    const types = s.checks.map((c) => c.type);
    const opts = { principal, requestId: newId('request') };
    // the pinned version: its document policy and threshold overrides are what this run applies
    const [template, applicant] = await Promise.all([
      this.rpc.call(SUBJECTS.templatesVersion, { id: s.workflow_template_id, version: s.template_version }, opts),
      this.rpc.call(SUBJECTS.applicantsGet, { id: s.applicant_id }, opts),
    ]);
    const read = hasIdentityCheck(types)
      ? await this.rpc.call(SUBJECTS.evidenceCaptureVerify, verifyRequest(s, template, types.includes('liveness') ? challengeSteps(this.cfg.CAPTURE_SECRET_KEY, s.id) : []), {
          ...opts,
          timeoutMs: this.cfg.LIVE_READ_TIMEOUT,
        })
      : null;
    const intel = await this.device(q, s, read, applicant);
    const device = deviceCheckOutcome(intel);
    const comparison = read?.holder ? compareApplicant(applicant, read.holder) : null;
    // the same selfie sent before for another applicant of the organization: a person looks (face match, else liveness)
    const seenBefore = read?.selfie_fingerprint ? await this.repo.noteSelfie(q, s, read.selfie_fingerprint, s.applicant_id, s.id, SELFIE_SEEN_BITS) : [];
    const flagged = types.includes('face_match') ? 'face_match' : 'liveness';
    const watch = types.includes('watchlist') ? await this.screenWatchlist(read, applicant, template, opts) : null;
    const listed = watch && watch.outcome !== null ? watchlistFindings(s.id, watch) : [];
    const day = new Date().toISOString().slice(0, 10);
    const checks = types.map((type): CheckResult => {
      switch (type) {
        case 'document': {
          if (!read) return { type, outcome: 'error', reasons: [NOT_CONFIGURED], score: null };
          const v = judgeDocument(read.checks.document, read, comparison, policyOf(template), day);
          return { type, outcome: v.outcome, reasons: [...v.reasons], score: v.score ?? null };
        }
        case 'face_match':
        case 'liveness': {
          if (!read) return { type, outcome: 'error', reasons: [NOT_CONFIGURED], score: null };
          const v = read.checks[type];
          const check: CheckResult = { type, outcome: v.outcome, reasons: [...v.reasons], score: v.score ?? null };
          return seenBefore.length > 0 && type === flagged ? selfieSeenBefore(check) : check;
        }
        case 'device':
          return { type, outcome: device.outcome, reasons: [...device.reasons], score: null };
        case 'watchlist':
          // no list loaded in the region: as for any provider not configured
          if (!watch || watch.outcome === null) return { type, outcome: 'error', reasons: [NOT_CONFIGURED], score: null };
          return { type, outcome: watch.outcome, reasons: watch.hits.length > 0 ? [WATCHLIST_HIT] : [], score: null };
        default:
          // credit history, adverse media, signing: a data provider the region has not configured
          return { type, outcome: 'error', reasons: [NOT_CONFIGURED], score: null };
      }
    });
    const idv: Idv | null = read
      ? { capture_acquisition: s.capture_acquisition ?? 'camera', available_images: read.available_images, document: read.document, holder: read.holder }
      : null;
    const context = liveContext(applicant, read, checks, s.device_intelligence ? intel : null, comparison);
    if (watch && watch.outcome !== null) {
      context.findings = listed;
      context.watchlist = { bestScore: watch.best_score, hitCount: watch.hits.length };
    }
    return { checks, idv, context, findings: listed };
  }

  /**
   * The `watchlist` check (docs/watchlist.md): the person the document names (its names, date of birth and
   * nationality), or the applicant's own names and date of birth when the template reads no document, screened by the
   * screening service against every list loaded in the region, with the pinned template's watchlist thresholds where
   * it sets them. Nothing leaves the region.
   */
  private async screenWatchlist(
    read: CaptureVerifyReply | null,
    a: Applicant,
    template: Pick<TemplateVersion, 'watchlist_thresholds'>,
    opts: { principal: Principal; requestId: string },
  ): Promise<WatchlistScreenReply> {
    const h = read?.holder;
    const person = h
      ? { family_name: h.family_name, given_names: [...h.given_names], date_of_birth: h.date_of_birth, nationality: h.nationality ?? null }
      : { family_name: a.family_name ?? '', given_names: [...(a.given_names ?? [])], date_of_birth: a.date_of_birth ?? null, nationality: null };
    return this.rpc.call(SUBJECTS.screeningWatchlistScreen, watchlistRequest(person, template), opts);
  }

  /** Device intelligence of the run (libs/domain/device-intel): what the capture saw, and the organization's history. */
  private async device(q: Queryable, s: SessionRow, read: CaptureVerifyReply | null, a: Applicant): Promise<DeviceIntel> {
    const c = s.capture_context;
    const deviceId = c.device_id ?? null;
    const history = deviceId ? await this.repo.deviceHistory(q, s, deviceId) : null;
    const docHash = read?.document ? this.documentHash(s.org_id, read.document) : null;
    const prior = docHash ? await this.repo.noteDocumentNumber(q, s, docHash, s.applicant_id, s.id) : null;
    const ring = deviceId || docHash ? await this.repo.ring(q, s, s.id, RING_WALK_LIMIT) : null;
    let signals: Signals | null = null;
    try {
      signals = parseSignals(c.signals ?? undefined);
    } catch {
      signals = null; // checked at submit; a record written before that check counts as not collected
    }
    return deviceIntel({
      signals,
      connection: { start: c.start ?? null, submit: c.submit ?? null },
      device_id: deviceId,
      deviceSessions: history?.sessions ?? null,
      deviceDistinctIps: history?.ips ?? null,
      priorApplicantsWithDocument: prior,
      ring,
      email: a.email ?? null,
      addressCountry: a.address?.country ?? null,
      documentIssuingCountry: read?.document?.issuing_country ?? null,
      lists: this.lists,
    });
  }

  /**
   * A document number as kept for repeat-applicant detection: keyed (HMAC with the region's capture key) with its
   * organization, country and type, so the table holds no number and cannot be matched across organizations.
   */
  private documentHash(orgId: string, d: NonNullable<CaptureVerifyReply['document']>): string {
    return createHmac('sha256', this.cfg.CAPTURE_SECRET_KEY).update(`document:${orgId}:${d.issuing_country ?? ''}:${d.type}:${d.number}`).digest('hex');
  }
}

/**
 * The hits of a `watchlist` check as findings of the run (docs/screening.md, "Watchlist"): subject type `sanction`,
 * severity `high` for a hit at or above the fail threshold, `medium` otherwise; the evidence says which list, which entity, the name it
 * matched, the score and why.
 */
export function watchlistFindings(sessionId: string, w: Pick<WatchlistScreenReply, 'hits' | 'fail_threshold'>): Finding[] {
  return w.hits.map((h, i) => ({
    id: `fnd_${sessionId.slice(4)}_l${i + 1}`,
    subjectType: 'sanction',
    severity: w.fail_threshold !== null && h.score >= w.fail_threshold ? 'high' : 'medium',
    sourceAuthority: h.list,
    findingType: 'watchlist_match',
    evidence: { matchScore: h.score, listId: h.list, entityId: h.entity_id, matchedName: h.matched_name, features: h.features },
  }));
}

/** What the `watchlist` check asks: the person, and the template's thresholds when it sets any. */
export function watchlistRequest(person: WatchlistPerson, template: Pick<TemplateVersion, 'watchlist_thresholds'>): WatchlistScreenRequest {
  const t = template.watchlist_thresholds;
  return t && Object.keys(t).length > 0 ? { person, thresholds: { ...t } } : { person };
}

/** A check whose selfie was seen in another applicant's session: `selfie_seen_before`, and a pass goes to review. */
export function selfieSeenBefore(c: CheckResult): CheckResult {
  return { ...c, outcome: c.outcome === 'pass' ? 'review' : c.outcome, reasons: [...c.reasons, 'selfie_seen_before'] };
}

/**
 * What the reader is asked: the session's capture and its liveness challenge, with the template's threshold
 * overrides when it has any.
 */
export function verifyRequest(s: Pick<SessionRow, 'id' | 'capture_acquisition'>, template: Pick<TemplateVersion, 'thresholds'>, challenge: ChallengeStep[] = []): CaptureVerifyRequest {
  const req: CaptureVerifyRequest = { session_id: s.id, acquisition: s.capture_acquisition ?? 'camera', challenge };
  if (template.thresholds && Object.keys(template.thresholds).length > 0) req.thresholds = { ...template.thresholds };
  return req;
}

/**
 * What screening reads of a live run: the names as the document spells them (`applicant.familyName`,
 * `applicant.givenNames`; the name arrived as components, so the verbatim legal name is empty), the date of
 * birth read from the document when there is one, the applicant's contact data and address, the check outcomes,
 * what the document says beside it (`document.*`, with `document.applicantMatch`), and with device intelligence
 * on, the `fraud.*` and `device.*` signals. A view for the rules only: nothing of it is stored over the applicant.
 */
export function liveContext(
  a: Applicant,
  read: CaptureVerifyReply | null,
  checks: readonly CheckResult[],
  intel: DeviceIntel | null,
  comparison: ApplicantComparison | null = null,
): EvaluationContextWire {
  const holder = read?.holder ?? null;
  let document: EvaluationContextWire['document'];
  if (read?.document && holder) {
    document = {
      type: read.document.type,
      familyName: holder.family_name,
      givenNames: [...holder.given_names],
      dateOfBirth: holder.date_of_birth,
    };
    if (read.document.issuing_country) document.issuingCountry = read.document.issuing_country;
    if (holder.nationality) document.nationality = holder.nationality;
    if (comparison) document.applicantMatch = comparison.match;
  }
  return screeningContext(a, checks, { holder, document, ...(intel ? { fraud: intel.fraud, device: intel.device } : {}) });
}
