import { Controller, Inject, Query } from '@nestjs/common';
import { LIST_TEXT, webhookEventsQuery } from '@verity/api-schema';
import { SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { Route } from '../access/routes.js';
import { CallerOf, type Caller } from '../http/caller.js';

/** The delivery log: one row per delivery attempt. */
@Controller()
export class WebhookEventsController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Route('GET /v1/webhook-events', {
    access: { scope: 'webhooks:read', rateClass: 'reads' },
    tag: 'Webhooks',
    summary: 'List webhook delivery attempts',
    description: `One row per delivery attempt; never the signing secret or the payload. ${LIST_TEXT} Filters \`session_id\`, \`subscription_id\`.`,
    query: webhookEventsQuery,
    success: { status: 200, description: 'A page of attempts.', body: { schema: 'WebhookAttemptPage' } },
  })
  async list(@Query() query: Record<string, unknown>, @CallerOf() c: Caller) {
    return this.rpc.call(SUBJECTS.webhookAttemptsList, query, c);
  }
}
