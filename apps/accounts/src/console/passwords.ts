import { randomBytes } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';

/**
 * Argon2id with OWASP's parameters for it (docs/decisions.md, "Console users"): 19 MiB of memory, two passes, one
 * lane; the library's own defaults are the same. A hash carries its parameters (`$argon2id$v=19$m=19456,t=2,p=1$…`),
 * so raising them later still verifies the hashes already stored.
 */
export const ARGON2_OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** The PHC string of a password's Argon2id hash, with a random salt; computed off the event loop. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

/**
 * Whether `password` is the one `stored` was made from. A stored value that is no Argon2 hash answers false
 * rather than throwing: the caller answers as for a wrong password.
 */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/**
 * Verifies against a hash nobody's password matches, with the same parameters, so that a sign-in with an unknown
 * address costs what one with a wrong password costs: its time does not tell which addresses have an account.
 * The hash is made once per process, on first need (eagerly by `warmUp`).
 */
let dummy: Promise<string> | undefined;

export function warmUp(): Promise<string> {
  dummy ??= hashPassword(randomBytes(32).toString('base64'));
  return dummy;
}

export async function verifyNobody(password: string): Promise<void> {
  await verifyPassword(await warmUp(), password);
}
