import type { ExpectedOutcome, IdScanResult } from '@verity/contracts';
import { DomainError } from '@verity/errors';

/**
 * What extraction is given. In test mode only the expected outcome: the uploaded images are validated and then
 * discarded, never sent for extraction, and this type makes that so. In live mode, the normalized images and the
 * caller's deadline (epoch ms).
 */
export type ExtractionRequest =
  | { mode: 'test'; expected_outcome: ExpectedOutcome }
  | { mode: 'live'; front: Buffer; back: Buffer | null; deadline: number };

/**
 * Why a live scan read nothing, as the scan answers it in `details.reason` (docs/id-scan.md). The reader's
 * `unreadable` keeps the scan's documented name, `no_machine_readable_data`.
 */
export type UnreadableReason = 'check_digit_mismatch' | 'unsupported_document' | 'no_machine_readable_data';

/**
 * What extraction found. An unreadable document says why in live mode only: in test mode `fail` and
 * `doc_quality` are the same answer on the wire.
 */
export type Extraction =
  | { readable: true; outcome: 'pass' | 'review'; reasons: string[]; document: IdScanResult['document']; holder: IdScanResult['holder'] }
  | { readable: false; reason?: UnreadableReason };

/** Reads identity fields from a document. */
export interface Extractor {
  extract(req: ExtractionRequest): Promise<Extraction>;
}

/** The holder and document of every synthetic scan: the public specimen also printed on synthetic evidence. */
export const SPECIMEN_DOCUMENT: IdScanResult['document'] = {
  type: 'identity_card',
  issuing_country: 'NL',
  number: 'SPECI2014',
  expiry_date: '2034-03-09',
};
export const SPECIMEN_HOLDER: IdScanResult['holder'] = {
  family_name: 'De Bruijn',
  given_names: ['Willeke', 'Liselotte'],
  date_of_birth: '1965-03-10',
  nationality: 'NL',
};

/**
 * Test mode: the result follows `expected_outcome` alone. `pass` and `review` read the specimen; `fail` and
 * `doc_quality` are unreadable, and are the same answer on the wire.
 */
export class SyntheticExtractor implements Extractor {
  async extract(req: ExtractionRequest): Promise<Extraction> {
    if (req.mode !== 'test') throw new DomainError('internal_error', { message: 'the synthetic extractor serves test mode only' });
    switch (req.expected_outcome) {
      case 'pass':
      case 'review':
        return {
          readable: true,
          outcome: req.expected_outcome,
          reasons: [],
          document: { ...SPECIMEN_DOCUMENT },
          holder: { ...SPECIMEN_HOLDER, given_names: [...SPECIMEN_HOLDER.given_names] },
        };
      case 'fail':
      case 'doc_quality':
        return { readable: false };
    }
  }
}

export const EXTRACTORS = Symbol('EXTRACTORS');
export type Extractors = Record<'test' | 'live', Extractor>;
