import { Body, Controller, Inject, Param, Query } from '@nestjs/common';
import { idParam, LIST_TEXT, listQuery } from '@verity/api-schema';
import { SUBJECTS } from '@verity/contracts';
import { RpcClient } from '@verity/platform';
import { Route } from '../access/routes.js';
import { CallerOf, type Caller } from '../http/caller.js';

@Controller()
export class ApplicantsController {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  @Route('POST /v1/applicants', {
    access: { scope: 'applicants:write', rateClass: 'applicants:create' },
    tag: 'Applicants',
    summary: 'Create an applicant',
    description:
      'Names as the person holds them: `family_name` whole, `given_names` ordered. The legacy fields `first_name`, `middle_name`, `last_name`, `legal_name` and whole-name fields (`name`, `full_name`) are refused with 422 `validation_error`, the issue naming the replacement fields; any other unknown field is refused.',
    body: { component: 'ApplicantInput', example: { family_name: 'Lovelace', given_names: ['Ada'] } },
    success: { status: 201, description: 'The applicant created.', body: { data: 'Applicant' } },
  })
  async create(@Body() body: unknown, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.applicantsCreate, { body }, c) };
  }

  @Route('GET /v1/applicants/:id', {
    access: { scope: 'applicants:read', rateClass: 'reads' },
    tag: 'Applicants',
    summary: 'Read an applicant',
    description: 'After an erasure the applicant is answered with its id, `erased: true` and null personal fields.',
    params: { id: idParam('applicant') },
    success: { status: 200, description: 'The applicant.', body: { data: 'Applicant' } },
    errors: ['resource_not_found'],
  })
  async get(@Param('id') id: string, @CallerOf() c: Caller) {
    return { data: await this.rpc.call(SUBJECTS.applicantsGet, { id }, c) };
  }

  @Route('GET /v1/applicants', {
    access: { scope: 'applicants:read', rateClass: 'reads' },
    tag: 'Applicants',
    summary: 'List applicants',
    description: LIST_TEXT,
    query: listQuery,
    success: { status: 200, description: 'A page of applicants.', body: { schema: 'ApplicantPage' } },
  })
  async list(@Query() query: Record<string, unknown>, @CallerOf() c: Caller) {
    return this.rpc.call(SUBJECTS.applicantsList, query, c);
  }
}
