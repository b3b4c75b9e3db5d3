import { DomainError } from '@verity/errors';
import { isId } from '@verity/keys';
import type { OrganizationsRepository, OrgRow } from '../organizations/organizations.repository.js';

/** The organization an operator request names in `org_id`, or 404 `resource_not_found` on `org_id`. */
export async function existingOrg(orgs: OrganizationsRepository, orgId: unknown): Promise<OrgRow> {
  const org = isId('org', orgId) ? await orgs.find(orgId) : null;
  if (!org) throw DomainError.notFound('org_id');
  return org;
}
