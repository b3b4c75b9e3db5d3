export * from './sniff.js';
export * from './images.js';
export * from './semaphore.js';
export * from './upload.js';
