export { gatewayEnv, gatewaySchema, loadGatewayConfig, type GatewayConfig } from './config.js';
