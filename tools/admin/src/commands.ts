import { SUBJECTS, TEST_DATA_PURGES, type SubscriptionStatus } from '@verity/contracts';
import type { KeyType, Mode } from '@verity/keys';
import type { RpcClient } from '@verity/platform';
import type { Tier } from '@verity/ratelimit';
import { parseBool, required, UsageError, type ParsedArgs } from './args.js';
import { ACTIVITY_USAGE, runActivityCommand } from './activity-command.js';
import { LIST_USAGE, runListCommand } from './list-commands.js';
import { runUserCommand, USER_USAGE } from './user-commands.js';
import { runWebhookCommand, WEBHOOK_USAGE } from './webhook-commands.js';

export const USAGE = `usage: npm run admin -- <command> --region us|eu [options]
  org create       --name NAME [--tier standard|elevated|enterprise|custom]
  org get          --org ORG_ID
  org set-tier     --org ORG_ID --tier TIER [--limits '{"reads":5000}']
  org purge-test-data --org ORG_ID   (irreversible: every test-mode record of the organization, in every service)
  key create       --org ORG_ID --mode test|live --type sk|pk --scopes a,b,c
  key revoke       --key KEY_ID
  key rotate       --key KEY_ID
  billing set      --org ORG_ID [--subscription active|past_due|canceled] [--wallet-balance N|none] [--wallet-locked true|false]
  email-log        --org ORG_ID [--limit 1-100] [--mode test|live]
${USER_USAGE}
${ACTIVITY_USAGE}
${WEBHOOK_USAGE}
${LIST_USAGE}`;

function parseJson(name: string, v: string | undefined): unknown {
  if (v === undefined) return undefined;
  try {
    return JSON.parse(v);
  } catch {
    throw new UsageError(`--${name} must be JSON`);
  }
}

/**
 * Deletes every test-mode record of an organization in each service of the region, and counts what went. Each
 * service's part is one transaction; a service that fails stops the command, and running it again finishes the
 * rest (what is gone is simply not found again).
 */
async function purgeTestData(rpc: RpcClient, orgId: string, call: { principal: null; requestId: string }) {
  const org = await rpc.call(SUBJECTS.accountsOrgGet, { org_id: orgId }, call);
  const removed: Record<string, Record<string, number>> = {};
  for (const [service, subject] of TEST_DATA_PURGES) removed[service] = (await rpc.call(subject, { org_id: org.id }, call)).removed;
  return { object: 'test_data_purge', org_id: org.id, mode: 'test', removed };
}

/** Runs one operator command against the region's services over NATS and returns what to print. */
export async function runCommand(args: ParsedArgs, rpc: RpcClient, requestId: string): Promise<unknown> {
  const [resource, action] = args.words;
  const f = args.flags;
  const call = { principal: null, requestId };
  switch (action === undefined ? resource : `${resource} ${action}`) {
    case 'org create':
      return rpc.call(SUBJECTS.accountsOrgCreate, { name: required(f, 'name'), tier: f.tier as Tier | undefined }, call);
    case 'org get':
      return rpc.call(SUBJECTS.accountsOrgGet, { org_id: required(f, 'org') }, call);
    case 'org set-tier':
      return rpc.call(
        SUBJECTS.accountsOrgSetTier,
        { org_id: required(f, 'org'), tier: required(f, 'tier') as Tier, limits: parseJson('limits', f.limits) },
        call,
      );
    case 'org purge-test-data':
      return purgeTestData(rpc, required(f, 'org'), call);
    case 'key create':
      return rpc.call(
        SUBJECTS.accountsKeyCreate,
        {
          org_id: required(f, 'org'),
          mode: required(f, 'mode') as Mode,
          type: (f.type ?? 'sk') as KeyType,
          scopes: (f.scopes ?? '').split(',').map((s) => s.trim()).filter(Boolean),
        },
        call,
      );
    case 'key revoke':
      return rpc.call(SUBJECTS.accountsKeyRevoke, { key_id: required(f, 'key') }, call);
    case 'key rotate':
      return rpc.call(SUBJECTS.accountsKeyRotate, { key_id: required(f, 'key') }, call);
    case 'billing set': {
      const wb = f['wallet-balance'];
      let wallet_balance: number | null | undefined;
      if (wb === 'none') wallet_balance = null;
      else if (wb !== undefined) {
        if (!/^[0-9]+$/.test(wb)) throw new UsageError('--wallet-balance must be a whole number or none');
        wallet_balance = Number(wb);
      }
      return rpc.call(
        SUBJECTS.accountsBillingSet,
        {
          org_id: required(f, 'org'),
          subscription_status: f.subscription as SubscriptionStatus | undefined,
          wallet_balance,
          wallet_locked: parseBool('wallet-locked', f['wallet-locked']),
        },
        call,
      );
    }
    case 'email-log': {
      const limit = f.limit;
      if (limit !== undefined && !/^[0-9]{1,3}$/.test(limit)) throw new UsageError('--limit must be a whole number from 1 to 100');
      if (f.mode !== undefined && f.mode !== 'test' && f.mode !== 'live') throw new UsageError('--mode must be test or live');
      return rpc.call(
        SUBJECTS.sessionsEmailLog,
        { org_id: required(f, 'org'), limit: limit === undefined ? undefined : Number(limit), mode: f.mode as Mode | undefined },
        call,
      );
    }
    case 'webhook create':
    case 'webhook list':
    case 'webhook disable':
    case 'webhook rotate-secret':
    case 'webhook replay':
      return runWebhookCommand(action!, f, rpc, call);
    case 'user create':
    case 'user list':
      return runUserCommand(action!, f, rpc, call);
    case 'activity':
      return runActivityCommand(f, rpc, call);
    case 'lists load':
    case 'lists status':
      return runListCommand(action!, f, args.words.slice(2), rpc, call);
    default:
      throw new UsageError(`unknown command "${args.words.join(' ')}"`);
  }
}
