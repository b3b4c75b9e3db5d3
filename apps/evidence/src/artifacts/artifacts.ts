import { SERVED_ARTIFACTS, type EvidenceArtifact, type StoredArtifact } from '@verity/contracts';

/** True for `portrait`, `front` and `selfie`: the only values the image endpoint serves. */
export function isServedArtifact(v: unknown): v is EvidenceArtifact {
  return typeof v === 'string' && (SERVED_ARTIFACTS as readonly string[]).includes(v);
}

/** The served artifacts among `stored`, once each, in the order portrait, front, selfie; never `back`. */
export function availableImages(stored: readonly StoredArtifact[]): EvidenceArtifact[] {
  return SERVED_ARTIFACTS.filter((a) => stored.includes(a));
}
