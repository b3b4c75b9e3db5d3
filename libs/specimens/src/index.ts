export * from './mrz.js';
export * from './aamva.js';
export * from './faces.js';
export * from './render.js';
export * from './photo.js';
export * from './catalogue.js';
export * from './expected.js';
export * from './matrix.js';
