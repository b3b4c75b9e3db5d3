export * from './api-key.js';
export * from './ids.js';
export * from './capture-secret.js';
export * as aead from './aead.js';
export * from './sealed-box.js';
