import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The development key that encrypts webhook signing secrets at rest in the local stack (WEBHOOK_SECRET_KEY,
 * 32 bytes base64): generated once per checkout into `.verity/webhook-secret.key` (mode 0600, ignored by
 * git) and reused on every start, so subscriptions created yesterday still sign today. Production sets
 * WEBHOOK_SECRET_KEY from a secret store; a set variable always wins.
 */
export function devWebhookSecretKey(repoRoot: string): string {
  const file = path.join(repoRoot, '.verity', 'webhook-secret.key');
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (/^[A-Za-z0-9+/]{43}=$/.test(existing)) return existing;
  } catch {
    // not created yet
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('base64');
  try {
    // 'wx': if another process created it meanwhile, keep theirs
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch {
    return readFileSync(file, 'utf8').trim();
  }
}
