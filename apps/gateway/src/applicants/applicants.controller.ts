import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { CallerOf, type Caller } from '../http/caller.js';

@Controller('v1/applicants')
export class ApplicantsController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Post()
  @HttpCode(201)
  async create(@Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.applicantsCreate, { body }, c) };
  }

  @Get(':id')
  async get(@Param('id') id: string, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.applicantsGet, { id }, c) };
  }

  @Get()
  async list(@Query() query: Record<string, unknown>, @CallerOf() c: Caller) {
    return this.rpc.call(SUBJECTS.applicantsList, query, c);
  }
}
