import { Init1763800000000 } from './migrations/1763800000000-Init.js';
import { CaptureUploads1764000000000 } from './migrations/1764000000000-CaptureUploads.js';
import { PrivacyRetention1764300000000 } from './migrations/1764300000000-PrivacyRetention.js';

export const EVIDENCE_MIGRATIONS = [Init1763800000000, CaptureUploads1764000000000, PrivacyRetention1764300000000];
