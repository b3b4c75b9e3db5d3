export { EVIDENCE_SERVICE, evidenceEnv } from './definition.js';
