import { Init1763800000000 } from './migrations/1763800000000-Init.js';
import { CaptureUploads1764000000000 } from './migrations/1764000000000-CaptureUploads.js';
import { PrivacyRetention1764300000000 } from './migrations/1764300000000-PrivacyRetention.js';
import { ReviewerBack1764400000000 } from './migrations/1764400000000-ReviewerBack.js';
import { ChallengeFrames1764500000000 } from './migrations/1764500000000-ChallengeFrames.js';
import { ObjectStore1764600000000 } from './migrations/1764600000000-ObjectStore.js';

export const EVIDENCE_MIGRATIONS = [Init1763800000000, CaptureUploads1764000000000, PrivacyRetention1764300000000, ReviewerBack1764400000000, ChallengeFrames1764500000000, ObjectStore1764600000000];
