export { APPLICANTS_SERVICE, applicantsEnv, type ApplicantsConfig } from './config.js';
