export { ID_SCAN_SERVICE, idScanEnv, type IdScanConfig } from './config.js';
