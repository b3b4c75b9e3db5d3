export { WEBHOOK_DELIVERY_SERVICE } from './definition.js';
export { webhookEnv } from './config.js';
