export * from './api-key.js';
export * from './ids.js';
