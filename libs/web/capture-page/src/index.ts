export * from './html.js';
export * from './assets.js';
export * from './headers.js';
// the challenge's timeline, for a client or a test that plays a camera along it
export { CHALLENGE_PACE, CHALLENGE_WORDS, challengeSchedule, type ChallengeStep } from '../browser/flow.js';
