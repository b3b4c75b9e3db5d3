import { Controller } from '@nestjs/common';
import type { ApiKeyObject } from '@verity/api-schema';
import { Route } from '../access/routes.js';
import { CallerOf, type Caller } from '../http/caller.js';

/** GET /v1/me: the API key object, exactly the fields of docs/authentication.md. Answered from the principal. */
@Controller()
export class MeController {
  // typed by the schema the OpenAPI document publishes (libs/domain/api-schema), so the two cannot drift
  @Route('GET /v1/me', {
    access: { scope: null, rateClass: 'reads', publishable: true, billingExempt: true },
    tag: 'Account',
    summary: 'The calling API key',
    description:
      'The key object: id, organization, mode, region and scopes. Any key, publishable keys included, needs no scope. Exempt from billing refusals (an account-state read).',
    success: { status: 200, description: 'The key.', body: { data: 'ApiKey' } },
  })
  me(@CallerOf() c: Caller): { data: ApiKeyObject } {
    const p = c.principal;
    return {
      data: { id: p.key_id, object: 'api_key', org_id: p.org_id, mode: p.mode, region: p.region, scopes: p.scopes },
    };
  }
}
