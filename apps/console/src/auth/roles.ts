import { consoleKeyScopes, type ConsoleRole } from '@verity/contracts';
import type { Mode, Scope } from '@verity/keys';

export type PageName = 'verifications' | 'review' | 'keys' | 'webhooks' | 'test-data' | 'logs' | 'usage' | 'billing' | 'users' | 'account';

export interface PageDef {
  name: PageName;
  title: string;
  path: string;
  roles: readonly ConsoleRole[];
  /** Reached from the bar rather than the navigation (the person's own account). */
  inBar?: true;
}

const ALL: readonly ConsoleRole[] = ['owner', 'admin', 'developer', 'reviewer'];

/** The console's pages in navigation order, and who may open each (contract §19; users: owners only). */
export const PAGES: readonly PageDef[] = [
  { name: 'verifications', title: 'Verifications', path: '/verifications', roles: ALL },
  { name: 'review', title: 'Review queue', path: '/review', roles: ['owner', 'admin', 'reviewer'] },
  { name: 'keys', title: 'API keys', path: '/keys', roles: ['owner', 'admin', 'developer'] },
  { name: 'webhooks', title: 'Webhooks', path: '/webhooks', roles: ['owner', 'admin'] },
  { name: 'test-data', title: 'Test data', path: '/test-data', roles: ['owner', 'admin'] },
  { name: 'logs', title: 'Logs', path: '/logs', roles: ['owner', 'admin', 'developer'] },
  { name: 'usage', title: 'Usage', path: '/usage', roles: ['owner', 'admin'] },
  { name: 'billing', title: 'Billing', path: '/billing', roles: ['owner', 'admin'] },
  { name: 'users', title: 'Team', path: '/users', roles: ['owner'] },
  { name: 'account', title: 'Your account', path: '/account', roles: ALL, inBar: true },
];

export function pageDef(name: PageName): PageDef {
  return PAGES.find((p) => p.name === name)!;
}

export function mayOpen(role: ConsoleRole, page: PageName): boolean {
  return pageDef(page).roles.includes(role);
}

/**
 * The scopes of the principal the console acts with for a user: what the role's pages need of the services, no
 * more. Services scope every query by the principal's organization and mode; the pages check the role first.
 */
export function scopesOf(role: ConsoleRole): Scope[] {
  switch (role) {
    case 'owner':
    case 'admin':
      return ['applicants:read', 'applicants:write', 'sessions:read', 'sessions:write', 'sessions:read_report', 'workflows:read', 'workflows:write', 'webhooks:read'];
    case 'developer':
      return ['applicants:read', 'sessions:read', 'workflows:read', 'webhooks:read'];
    case 'reviewer':
      return ['applicants:read', 'sessions:read', 'sessions:write', 'sessions:read_report', 'workflows:read'];
  }
}

/**
 * The scopes a person of `role` may give an API key of `mode`, and so whether they may create, rotate or revoke
 * that mode's keys at all (docs/security.md, "Roles"): the table of @verity/contracts, which accounts checks again.
 * Empty: none of that mode's keys.
 */
export function keyScopesOf(role: ConsoleRole, mode: Mode): readonly Scope[] {
  return consoleKeyScopes(role, mode);
}
