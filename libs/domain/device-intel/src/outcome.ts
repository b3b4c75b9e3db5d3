/**
 * The outcome of the `device` check of a live run, from the device-intelligence result. Never `fail`: like the
 * fraud rule types, which may not carry `decline`, device evidence only routes a verification to a person.
 */
import type { DeviceIntel } from './intel.js';

/** `fraud.botScore` below this sends the check to review. */
export const BOT_SCORE_REVIEW_BELOW = 50;

export type DeviceCheckReason =
  /** The browser reported automation (`webdriver`, `headless`) or its user agent is a headless browser. */
  | 'automation'
  /** `fraud.botScore` under {@link BOT_SCORE_REVIEW_BELOW}. */
  | 'bot_score_low'
  /** No measurement arrived, so the check had nothing to go on. */
  | 'collection_absent';

export interface DeviceCheckOutcome {
  outcome: 'pass' | 'review';
  /** Why `review`, in this order: `automation`, `bot_score_low`, `collection_absent`; empty for `pass`. */
  reasons: DeviceCheckReason[];
}

/**
 * `pass`, or `review` with its reasons:
 * - `automation` when `device.behavior.headless` is true;
 * - `bot_score_low` when `fraud.botScore` is under {@link BOT_SCORE_REVIEW_BELOW};
 * - `collection_absent` when `device.behavior.collectionAbsent` is true (or the result says nothing of it): a
 *   check the workflow asked for cannot pass on evidence a client chose not to send.
 */
export function deviceCheckOutcome(result: DeviceIntel): DeviceCheckOutcome {
  const reasons: DeviceCheckReason[] = [];
  const behavior = result.device.behavior;
  if (behavior.headless === true) reasons.push('automation');
  const score = result.fraud.botScore;
  if (typeof score === 'number' && score < BOT_SCORE_REVIEW_BELOW) reasons.push('bot_score_low');
  if (behavior.collectionAbsent !== false) reasons.push('collection_absent');
  return { outcome: reasons.length === 0 ? 'pass' : 'review', reasons };
}
