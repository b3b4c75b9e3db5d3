export { SCREENING_SERVICE, screeningEnv, type ScreeningConfig } from './definition.js';
export { ScreeningModule } from './app.module.js';
