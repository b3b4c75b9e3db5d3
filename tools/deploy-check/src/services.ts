/**
 * What each workload of deploy/ reads from its environment: the zod schemas of the built services (their config
 * modules in dist, loaded by path so that this tool needs no dependency on the apps' code).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { baseEnv, postgresEnv, serviceEnv } from '@verity/platform';
import { REPO_ROOT } from './paths.js';

/** One variable's schema: enough to ask whether it may be left unset and whether a value passes. */
export interface EnvSchema {
  safeParse(value: unknown): { success: boolean; error?: { issues: { message: string }[] } };
}
export type EnvShape = Record<string, EnvSchema>;

async function exported(file: string, name: string): Promise<EnvShape> {
  const mod = (await import(pathToFileURL(path.join(REPO_ROOT, file)).href)) as Record<string, EnvShape>;
  const shape = mod[name];
  if (!shape) throw new Error(`${file} exports no ${name}`);
  return shape;
}

/** The environment schema of each container of deploy/, by container name. */
export async function containerEnvSchemas(): Promise<Record<string, EnvShape>> {
  const service = serviceEnv as unknown as EnvShape;
  return {
    gateway: await exported('apps/gateway/dist/src/config.js', 'gatewayEnv'),
    console: await exported('apps/console/dist/src/config.js', 'consoleEnv'),
    accounts: { ...service, ...(await exported('apps/accounts/dist/src/config.js', 'accountsEnv')) },
    applicants: service,
    screening: { ...service, ...(await exported('apps/screening/dist/src/config.js', 'screeningEnv')) },
    sessions: { ...service, ...(await exported('apps/sessions/dist/src/config.js', 'sessionsEnv')) },
    'webhook-delivery': { ...service, ...(await exported('apps/webhook-delivery/dist/src/config.js', 'webhookEnv')) },
    evidence: { ...service, ...(await exported('apps/evidence/dist/src/config.js', 'evidenceEnv')) },
    'id-scan': { ...service, ...(await exported('apps/id-scan/dist/src/config.js', 'idScanEnv')) },
    // the migrate Job (libs/platform/service/src/migrate.ts)
    migrate: { ...(baseEnv as unknown as EnvShape), ...(postgresEnv as unknown as EnvShape) },
  };
}

/**
 * Variables whose default is a loopback address or that a cluster's server demands: optional for `npm start`,
 * required of a deployment. NATS_TLS_CA: the region's NATS speaks TLS only (docs/security.md, "Transport").
 */
export const REQUIRED_IN_CLUSTER = ['DATABASE_URL', 'NATS_URL', 'NATS_PASSWORD', 'NATS_TLS_CA', 'REDIS_URL', 'DOCS_BASE_URL', 'CONSOLE_PUBLIC_ORIGIN'];

/**
 * Variables that must be https in a deployment (the TLS of the Ingress), beyond what their schema checks: the console
 * refuses at start a plain-http CONSOLE_PUBLIC_ORIGIN that is not loopback (its session cookie would travel in the
 * clear), in loadConsoleConfig, after the schema.
 */
export const HTTPS_IN_CLUSTER = ['CONSOLE_PUBLIC_ORIGIN'];
