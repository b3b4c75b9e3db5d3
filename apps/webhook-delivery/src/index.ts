export { WEBHOOK_DELIVERY_SERVICE, webhookEnv, type WebhookConfig } from './config.js';
