export { ACCOUNTS_SERVICE, accountsEnv, type AccountsConfig } from './config.js';
