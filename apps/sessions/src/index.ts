export { SESSIONS_SERVICE, sessionsEnv, type SessionsConfig } from './config.js';
