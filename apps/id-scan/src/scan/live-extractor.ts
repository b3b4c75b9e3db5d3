import { DomainError } from '@verity/errors';
import { documentCheck, READER_BUSY_MESSAGE, type DocumentImages, type DocumentOutcome, type UnreadableReason as ReaderUnreadable } from '@verity/reading';
import type { Extraction, ExtractionRequest, Extractor, UnreadableReason } from './extractor.js';
import { Admission } from '@verity/platform';

/** What reads a document's machine-readable data: the reading pool (`ReadingPool` of `@verity/reading`). */
export interface DocumentReader {
  read(images: DocumentImages): Promise<DocumentOutcome>;
}

/** Admission to the reader: what the reader runs at once, how many may wait, and for how long. */
export interface ReadingAdmission {
  /** Reads at a time: the pool's threads, so that the pool itself never queues. */
  slots: number;
  /** Scans waiting for a slot; one more is refused at once. */
  maxWaiting: number;
  /** Longest wait for a slot; a scan also waits no longer than its own deadline. */
  queueTimeoutMs: number;
}

/**
 * Live mode: the normalized images are read by the reading pool, its MRZ (ICAO 9303 TD1, TD2, TD3) or PDF417
 * barcode (AAMVA), with the document around it and its printed zone checked. A read with nothing against it is
 * `pass`; anything the document check holds against it (no document around the data, printed data that
 * disagrees or could not be read, expired, a date of birth that cannot be, an issuer or nationality that is no
 * country) is `review`, with its reasons. The pool queues without bound, so admission is here: `slots` reads at once, at most `maxWaiting`
 * waiting, each until its deadline or `queueTimeoutMs`, whichever comes first; every other scan is refused
 * with 503 service_unavailable, the reader busy.
 */
export class LiveExtractor implements Extractor {
  private readonly admission: Admission;

  constructor(
    private readonly reader: DocumentReader,
    opts: ReadingAdmission,
  ) {
    this.admission = new Admission(opts.slots, opts.maxWaiting, opts.queueTimeoutMs, READER_BUSY_MESSAGE);
  }

  async extract(req: ExtractionRequest): Promise<Extraction> {
    if (req.mode !== 'live') throw new DomainError('internal_error', { message: 'the live extractor serves live mode only' });
    const outcome = await this.admission.run(() => this.reader.read({ front: req.front, back: req.back }), req.deadline);
    // the gateway has answered 503 at the deadline: no result, and so no audit entry, is left behind
    if (Date.now() > req.deadline) throw new DomainError('service_unavailable');
    return extraction(outcome);
  }
}

/**
 * The scan's names for the reader's reasons where they differ: the ID scan answered `document_expired` and
 * `no_machine_readable_data` before the reader named them `expired` and `unreadable`, and clients rely on them
 * (docs/id-scan.md). Every other reason is the reader's.
 */
const SCAN_NAMES: Record<string, string> = { expired: 'document_expired' };

function scanUnreadable(reason: ReaderUnreadable): UnreadableReason {
  return reason === 'unreadable' ? 'no_machine_readable_data' : reason;
}

/** The reader's outcome as the ID scan answers it: its fields, its outcome (only `pass` or `review`) and reasons. */
export function extraction(outcome: DocumentOutcome): Extraction {
  if (!outcome.readable) return { readable: false, reason: scanUnreadable(outcome.reason) };
  const { document: d, holder: h } = outcome.read;
  const check = documentCheck(outcome);
  return {
    readable: true,
    outcome: check.outcome === 'pass' ? 'pass' : 'review',
    reasons: check.reasons.map((r) => SCAN_NAMES[r] ?? r),
    document: { type: d.type, issuing_country: d.issuing_country, number: d.number, expiry_date: d.expiry_date },
    holder: { family_name: h.family_name, given_names: [...h.given_names], date_of_birth: h.date_of_birth, nationality: h.nationality },
  };
}
