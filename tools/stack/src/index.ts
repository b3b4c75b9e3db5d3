export * from './stack.js';
export * from './nats.js';
export * from './infra/check.js';
export * from './infra/local.js';
export * from './infra/packages.js';
export * from './infra/postgres.js';
export * from './infra/process.js';
export * from './database-roles.js';
