import { Body, Controller, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { CallerOf, type Caller } from '../http/caller.js';

@Controller('v1/workflow-templates')
export class WorkflowTemplatesController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Post()
  @HttpCode(201)
  async create(@Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.templatesCreate, { body }, c) };
  }

  @Get(':id')
  async get(@Param('id') id: string, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.templatesGet, { id }, c) };
  }

  @Get()
  async list(@Query() query: Record<string, unknown>, @CallerOf() c: Caller) {
    return this.rpc.call(SUBJECTS.templatesList, query, c);
  }

  @Patch(':id')
  async update(@Param('id') id: string, @Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.templatesUpdate, { id, body }, c) };
  }
}
