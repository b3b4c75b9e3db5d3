import { Init1763800000000 } from './migrations/1763800000000-Init.js';
import { DocumentPolicy1764400000000 } from './migrations/1764400000000-DocumentPolicy.js';
import { Watchlists1765000000000 } from './migrations/1765000000000-Watchlists.js';
import { WatchlistKeys1765000000001 } from './migrations/1765000000001-WatchlistKeys.js';
import { WatchlistMonitor1765000000002 } from './migrations/1765000000002-WatchlistMonitor.js';
import { WatchlistThresholds1765000000003 } from './migrations/1765000000003-WatchlistThresholds.js';

export const SCREENING_MIGRATIONS = [Init1763800000000, DocumentPolicy1764400000000, Watchlists1765000000000, WatchlistKeys1765000000001, WatchlistMonitor1765000000002, WatchlistThresholds1765000000003];
