export * from './ip.js';
export * from './classify.js';
export * from './url.js';
export * from './guard.js';
export * from './receiver-client.js';
