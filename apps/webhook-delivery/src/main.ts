import { runService } from '@verity/platform';
import { WebhookDeliveryModule } from './app.module.js';
import { WEBHOOK_DELIVERY_SERVICE } from './config.js';

await runService(WEBHOOK_DELIVERY_SERVICE, WebhookDeliveryModule);
