export * from './html.js';
export * from './assets.js';
export * from './headers.js';
