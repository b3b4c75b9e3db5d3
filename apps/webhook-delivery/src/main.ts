import { runService } from '@verity/platform';
import { WebhookDeliveryModule } from './app.module.js';
import { webhookEnv } from './config.js';
import { WEBHOOK_DELIVERY_SERVICE } from './definition.js';

await runService(WEBHOOK_DELIVERY_SERVICE, WebhookDeliveryModule, webhookEnv);
