export * from './catalogue.js';
export * from './domain-error.js';
export * from './parse-body.js';
