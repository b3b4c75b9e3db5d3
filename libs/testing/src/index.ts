export * from './database.js';
export * from './http.js';
export * from './webhook-receiver.js';
export * from './images.js';
export * from './service.js';
export * from './events.js';
export * from './principal.js';
export * from './multipart.js';
