export { SESSIONS_SERVICE } from './definition.js';
