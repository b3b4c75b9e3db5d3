export * from './stack.js';
export * from './infra.js';
