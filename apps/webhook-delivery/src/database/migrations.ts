import { Init1763820000000 } from './migrations/1763820000000-Init.js';
import { LeanerLedger1763900000000 } from './migrations/1763900000000-LeanerLedger.js';
import { DerivedDeliveryIds1764000000000 } from './migrations/1764000000000-DerivedDeliveryIds.js';
import { SubscriptionOwnerIndex1764300000000 } from './migrations/1764300000000-SubscriptionOwnerIndex.js';
import { CancelledDeliveriesIndex1764500000000 } from './migrations/1764500000000-CancelledDeliveriesIndex.js';

export const WEBHOOK_DELIVERY_MIGRATIONS = [
  Init1763820000000,
  LeanerLedger1763900000000,
  DerivedDeliveryIds1764000000000,
  SubscriptionOwnerIndex1764300000000,
  CancelledDeliveriesIndex1764500000000,
];
