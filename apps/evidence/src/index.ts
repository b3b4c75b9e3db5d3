export { EVIDENCE_SERVICE, evidenceEnv, type EvidenceConfig } from './config.js';
