import { parseBody } from '@verity/errors';
import { isId } from '@verity/keys';
import { z } from 'zod';

/** The request of every service's `*.admin.purge-test-data.v1` (docs/privacy.md, "Test data"): the organization. */
const purgeTestDataRequest = z.object({ org_id: z.string().refine((v) => isId('org', v), 'must be an organization id') });

/** The organization a test-data purge is for, or 422 `validation_error` naming `org_id`. */
export function purgeTarget(req: unknown): string {
  return parseBody(purgeTestDataRequest, req ?? {}).org_id;
}
