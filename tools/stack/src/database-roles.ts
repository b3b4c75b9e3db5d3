import { createHmac } from 'node:crypto';
import { serviceRole, servicePasswordVariable } from '@verity/platform/database-roles';

/**
 * The local stack's service roles (docs/operations.md, "Database roles"): each service connects as its own role,
 * whose password is derived from the owner's password in the database URL, so that a stack started on a clone of
 * a template migrated earlier (the tests) finds the roles with the passwords it expects, and nothing is stored.
 */
function rolePassword(ownerUrl: string, service: string): string {
  const owner = decodeURIComponent(new URL(ownerUrl).password);
  return createHmac('sha256', `verity-local-roles:${owner}`).update(service).digest('base64url');
}

/** The URL a service connects with: the owner's URL with the service's role and its password. */
export function serviceDatabaseUrl(ownerUrl: string, service: string): string {
  const u = new URL(ownerUrl);
  u.username = serviceRole(service.replace(/-/g, '_'));
  u.password = rolePassword(ownerUrl, service);
  return u.toString();
}

/** The environment of a service's migrate step: the password its role gets (`DATABASE_PASSWORD_<SERVICE>`). */
export function migrateRoleEnv(ownerUrl: string, service: string): Record<string, string> {
  return { [servicePasswordVariable(service)]: rolePassword(ownerUrl, service) };
}
