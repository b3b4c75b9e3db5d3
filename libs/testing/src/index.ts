export * from './database.js';
export * from './http.js';
