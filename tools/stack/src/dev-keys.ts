import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NATS_PASSWORD_FORMAT, newNatsPassword } from '@verity/contracts';
import { newPrincipalKeyPair } from '@verity/platform/principal-seal';

/**
 * A development secret of the local stack: generated once per checkout into `.verity/<name>.key` (mode 0600,
 * ignored by git) and reused on every start, so that what it protects survives a restart. Production sets each
 * from a secret store; a set variable always wins. 32 random bytes, base64.
 */
function devSecret(repoRoot: string, name: string, make = () => randomBytes(32).toString('base64'), valid = /^[A-Za-z0-9+/]{43}=$/): string {
  const file = path.join(repoRoot, '.verity', `${name}.key`);
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (valid.test(existing)) return existing;
  } catch {
    // not created yet
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = make();
  try {
    // 'wx': if another process created it meanwhile, keep theirs
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch {
    return readFileSync(file, 'utf8').trim();
  }
}

/** WEBHOOK_SECRET_KEY: encrypts webhook signing secrets at rest, so subscriptions created yesterday still sign today. */
export function devWebhookSecretKey(repoRoot: string): string {
  return devSecret(repoRoot, 'webhook-secret');
}

/** CONSOLE_TOTP_KEY of a region: encrypts its console's TOTP secrets at rest, so people enrolled yesterday sign in today. */
export function devConsoleTotpKey(repoRoot: string, region: string): string {
  return devSecret(repoRoot, `console-totp-${region}`);
}

/** CAPTURE_SECRET_KEY of a region: derives its capture links' client secrets, so links sent yesterday still work. */
export function devCaptureSecretKey(repoRoot: string, region: string): string {
  return devSecret(repoRoot, `capture-secret-${region}`);
}

/** ERASURE_SIGNING_KEY of a region: signs its erasure certificates, so certificates issued yesterday still verify. */
export function devErasureSigningKey(repoRoot: string, region: string): string {
  return devSecret(repoRoot, `erasure-signing-${region}`);
}

/** EVIDENCE_OBJECT_KEY of a region (`npm start -- --object-store`): seals its images in the object store, so those stored yesterday still open. */
export function devObjectKey(repoRoot: string, region: string): string {
  return devSecret(repoRoot, `object-key-${region}`);
}

/** A region's NATS password of one identity: kept so that the operator tool can log in while `npm start` runs. */
export function devNatsPassword(repoRoot: string, region: string, identity: string): string {
  return devSecret(repoRoot, `nats-${region}-${identity}`, newNatsPassword, NATS_PASSWORD_FORMAT);
}

/** The edges' principal keys of one region: each edge's PRINCIPAL_SIGNING_KEY, and every service's PRINCIPAL_VERIFY_KEYS. */
export interface PrincipalKeys {
  gateway: string;
  console: string;
  verify: string;
}

/**
 * A region's principal keys (docs/security.md, "The bus's trust boundary"): new key pairs for its gateway and its
 * console. Unlike the secrets above they are made at every start and never written down: they sign requests in flight
 * only, nothing stored. The stack keeps them for its life, so that a process restarted alone signs and verifies as the
 * others do; the other region's keys are other keys.
 */
export function devPrincipalKeys(region: string): PrincipalKeys {
  const gateway = newPrincipalKeyPair('gateway', `local-${region}`);
  const console = newPrincipalKeyPair('console', `local-${region}`);
  return { gateway: gateway.signing, console: console.signing, verify: `${gateway.verify},${console.verify}` };
}
