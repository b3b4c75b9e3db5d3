import { SUBJECTS } from '@verity/contracts';
import type { Mode } from '@verity/keys';
import type { CallOptions, RpcClient } from '@verity/platform';
import { required, UsageError } from './args.js';

export const WEBHOOK_USAGE = `  webhook create   --org ORG_ID --mode test|live --url https://… --events kyc.session.completed,…
  webhook list     --org ORG_ID [--mode test|live] [--limit 1-100] [--cursor CURSOR]
  webhook disable  --subscription WHS_ID
  webhook rotate-secret --subscription WHS_ID
  webhook replay   --event EVT_ID | --session SES_ID | --since ISO-8601 [--subscription WHS_ID] [--org ORG_ID]`;

function mode(v: string | undefined, isRequired: boolean): Mode | undefined {
  if (v === undefined && !isRequired) return undefined;
  if (v !== 'test' && v !== 'live') throw new UsageError('--mode must be test or live');
  return v;
}

/** The webhook subscription commands (docs/operations.md, docs/webhooks.md): create and rotate-secret print the secret, once. */
export async function runWebhookCommand(action: string, f: Record<string, string>, rpc: RpcClient, call: CallOptions): Promise<unknown> {
  switch (action) {
    case 'create':
      return rpc.call(
        SUBJECTS.webhookSubscriptionCreate,
        {
          org_id: required(f, 'org'),
          mode: mode(f.mode, true)!,
          url: required(f, 'url'),
          event_types: required(f, 'events').split(',').map((s) => s.trim()).filter(Boolean),
        },
        call,
      );
    case 'list':
      return rpc.call(SUBJECTS.webhookSubscriptionList, { org_id: required(f, 'org'), mode: mode(f.mode, false), limit: f.limit, cursor: f.cursor }, call);
    case 'disable':
      return rpc.call(SUBJECTS.webhookSubscriptionDisable, { subscription_id: required(f, 'subscription') }, call);
    case 'rotate-secret':
      return rpc.call(SUBJECTS.webhookSubscriptionRotateSecret, { subscription_id: required(f, 'subscription') }, call);
    case 'replay': {
      const given = ['event', 'session', 'since'].filter((k) => f[k] !== undefined);
      if (given.length !== 1) throw new UsageError('webhook replay needs exactly one of --event, --session, --since');
      return rpc.call(
        SUBJECTS.webhookReplay,
        { event_id: f.event, session_id: f.session, since: f.since, subscription_id: f.subscription, org_id: f.org },
        call,
      );
    }
    default:
      throw new UsageError(`unknown command "webhook ${action}"`);
  }
}
