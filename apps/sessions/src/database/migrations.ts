import { Init1763790000000 } from './migrations/1763790000000-Init.js';
import { LiveCapture1764000100000 } from './migrations/1764000100000-LiveCapture.js';
import { JobTrace1764100000000 } from './migrations/1764100000000-JobTrace.js';
import { OutboxTrace1765000000000 } from './migrations/1765000000000-OutboxTrace.js';
import { Erasure1764200000000 } from './migrations/1764200000000-Erasure.js';
import { UsageDaily1764300000000 } from './migrations/1764300000000-UsageDaily.js';
import { CheckReasons1764400000000 } from './migrations/1764400000000-CheckReasons.js';
import { SelfieFingerprints1764600000000 } from './migrations/1764600000000-SelfieFingerprints.js';
import { WatchlistMonitors1764800000000 } from './migrations/1764800000000-WatchlistMonitors.js';
import { CaptureImages1765200000000 } from './migrations/1765200000000-CaptureImages.js';
import { JobLease1765100000000 } from './migrations/1765100000000-JobLease.js';
import { WatchlistDecisions1764900000000 } from './migrations/1764900000000-WatchlistDecisions.js';

export const SESSIONS_MIGRATIONS = [Init1763790000000, LiveCapture1764000100000, JobTrace1764100000000, Erasure1764200000000, UsageDaily1764300000000, CheckReasons1764400000000, SelfieFingerprints1764600000000, WatchlistMonitors1764800000000, WatchlistDecisions1764900000000, OutboxTrace1765000000000, JobLease1765100000000, CaptureImages1765200000000];
