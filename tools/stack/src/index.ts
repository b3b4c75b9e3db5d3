export * from './stack.js';
export * from './infra.js';
export * from './nats.js';
