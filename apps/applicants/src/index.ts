export { APPLICANTS_SERVICE } from './definition.js';
