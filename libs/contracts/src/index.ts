export * from './principal.js';
export * from './envelope.js';
export * from './subjects.js';
export * from './health.js';
export type * from './accounts.js';
export type * from './applicants.js';
export * from './screening.js';
export * from './sessions.js';
export * from './webhooks.js';
