export { SCREENING_SERVICE, screeningEnv, type ScreeningConfig } from './config.js';
