import { Body, Controller, Inject, Param, Query } from '@nestjs/common';
import { idParam, LIST_TEXT, listQuery } from '@verity/api-schema';
import { SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { Route } from '../access/routes.js';
import { CallerOf, type Caller } from '../http/caller.js';

@Controller()
export class WorkflowTemplatesController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Route('POST /v1/workflow-templates', {
    access: { scope: 'workflows:write', rateClass: 'global' },
    tag: 'Workflow templates',
    summary: 'Create a workflow template',
    description:
      'Checks, screening rules and switches of a verification. Every refusal is reported at once and nothing is saved. `screening_rules` is validated by the screening engine (see ScreeningRuleInput for the rules it applies beyond the schema).',
    body: { component: 'WorkflowTemplateCreate', example: { name: 'Standard KYC', checks: ['document', 'face_match'] } },
    success: { status: 201, description: 'The template, version 1.', body: { data: 'WorkflowTemplate' } },
    errors: ['esign_requirements_not_met'],
  })
  async create(@Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.templatesCreate, { body }, c) };
  }

  @Route('GET /v1/workflow-templates/:id', {
    access: { scope: 'workflows:read', rateClass: 'reads' },
    tag: 'Workflow templates',
    summary: 'Read a workflow template',
    description: 'Its latest version.',
    params: { id: idParam('workflow template') },
    success: { status: 200, description: 'The template.', body: { data: 'WorkflowTemplate' } },
    errors: ['resource_not_found'],
  })
  async get(@Param('id') id: string, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.templatesGet, { id }, c) };
  }

  @Route('GET /v1/workflow-templates', {
    access: { scope: 'workflows:read', rateClass: 'reads' },
    tag: 'Workflow templates',
    summary: 'List workflow templates',
    description: LIST_TEXT,
    query: listQuery,
    success: { status: 200, description: 'A page of templates.', body: { schema: 'WorkflowTemplatePage' } },
  })
  async list(@Query() query: Record<string, unknown>, @CallerOf() c: Caller) {
    return this.rpc.call(SUBJECTS.templatesList, query, c);
  }

  @Route('PATCH /v1/workflow-templates/:id', {
    access: { scope: 'workflows:write', rateClass: 'global' },
    tag: 'Workflow templates',
    summary: 'Change a workflow template',
    description:
      'Only the fields sent change, and the result is checked as a whole; a change makes a new version (sessions keep the version they were created with). `screening_rules` sent replaces every rule (`[]` clears them); omitted, they stay. Refusals are all-or-nothing.',
    params: { id: idParam('workflow template') },
    body: { component: 'WorkflowTemplateUpdate', example: { name: 'Standard KYC, reviewed' } },
    success: { status: 200, description: 'The template, its new version.', body: { data: 'WorkflowTemplate' } },
    errors: ['resource_not_found', 'esign_requirements_not_met'],
  })
  async update(@Param('id') id: string, @Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.templatesUpdate, { id, body }, c) };
  }
}
