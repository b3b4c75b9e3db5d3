import { Controller, Get, Inject, Query } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { CallerOf, type Caller } from '../http/caller.js';

/** The delivery log: one row per delivery attempt. */
@Controller('v1/webhook-events')
export class WebhookEventsController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Get()
  async list(@Query() query: Record<string, unknown>, @CallerOf() c: Caller) {
    return this.rpc.call(SUBJECTS.webhookAttemptsList, query, c);
  }
}
