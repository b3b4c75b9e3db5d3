export * from './ip.js';
export * from './classify.js';
export * from './url.js';
