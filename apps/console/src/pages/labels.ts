import type { CheckType } from '@verity/contracts';

/** How the console names each check of a workflow. */
export const CHECK_LABELS: Record<CheckType, string> = {
  document: 'Document',
  face_match: 'Face match',
  liveness: 'Liveness',
  credit_history: 'Credit history',
  watchlist: 'Watchlist',
  adverse_media: 'Adverse media',
  device: 'Device',
  document_signing: 'Document signing',
};
