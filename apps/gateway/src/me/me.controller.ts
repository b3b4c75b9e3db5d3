import { Controller, Get } from '@nestjs/common';
import { CallerOf, type Caller } from '../http/caller.js';

/** GET /v1/me: the API key object, exactly the specification's fields. Answered from the principal. */
@Controller('v1/me')
export class MeController {
  @Get()
  me(@CallerOf() c: Caller) {
    const p = c.principal;
    return {
      data: { id: p.key_id, object: 'api_key', org_id: p.org_id, mode: p.mode, region: p.region, scopes: p.scopes },
    };
  }
}
