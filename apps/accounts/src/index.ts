export { ACCOUNTS_SERVICE } from './definition.js';
