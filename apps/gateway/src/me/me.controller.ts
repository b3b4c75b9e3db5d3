import { Controller, Get } from '@nestjs/common';
import type { ApiKeyObject } from '@verity/api-schema';
import { CallerOf, type Caller } from '../http/caller.js';

/** GET /v1/me: the API key object, exactly the fields of docs/authentication.md. Answered from the principal. */
@Controller('v1/me')
export class MeController {
  // typed by the schema the OpenAPI document publishes (libs/api-schema), so the two cannot drift
  @Get()
  me(@CallerOf() c: Caller): { data: ApiKeyObject } {
    const p = c.principal;
    return {
      data: { id: p.key_id, object: 'api_key', org_id: p.org_id, mode: p.mode, region: p.region, scopes: p.scopes },
    };
  }
}
