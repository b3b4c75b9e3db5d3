export * from './database.js';
export * from './http.js';
export * from './webhook-receiver.js';
export * from './images.js';
