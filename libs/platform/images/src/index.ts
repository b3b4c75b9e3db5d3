export * from './sniff.js';
export * from './images.js';
export * from './upload.js';
