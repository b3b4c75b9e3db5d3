import { Init1763820000000 } from './migrations/1763820000000-Init.js';
import { DeliveryTrace1765000000000 } from './migrations/1765000000000-DeliveryTrace.js';

export const WEBHOOK_DELIVERY_MIGRATIONS = [Init1763820000000, DeliveryTrace1765000000000];
