export * from './limits.js';
export * from './window.js';
