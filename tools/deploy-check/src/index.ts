export * from './kustomize.js';
export * from './schemas.js';
export * from './policy.js';
export * from './services.js';
export * from './dockerfile.js';
export * from './paths.js';
