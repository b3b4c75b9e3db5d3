export { ID_SCAN_SERVICE, idScanEnv } from './definition.js';
