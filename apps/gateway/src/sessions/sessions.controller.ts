import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { CallerOf, type Caller } from '../http/caller.js';

@Controller('v1/sessions')
export class SessionsController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Post()
  @HttpCode(201)
  async create(@Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.sessionsCreate, { body }, c) };
  }

  @Get(':id')
  async get(@Param('id') id: string, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.sessionsGet, { id }, c) };
  }

  @Get()
  async list(@Query() query: Record<string, unknown>, @CallerOf() c: Caller) {
    return this.rpc.call(SUBJECTS.sessionsList, query, c);
  }

  @Post(':id/notes')
  @HttpCode(200)
  async note(@Param('id') id: string, @Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.sessionsNote, { id, body }, c) };
  }

  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(@Param('id') id: string, @Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.sessionsCancel, { id, body }, c) };
  }

  @Post(':id/review')
  @HttpCode(200)
  async review(@Param('id') id: string, @Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.sessionsReview, { id, body }, c) };
  }

  @Post(':id/decision')
  @HttpCode(200)
  async decision(@Param('id') id: string, @Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.sessionsDecision, { id, body }, c) };
  }
}
