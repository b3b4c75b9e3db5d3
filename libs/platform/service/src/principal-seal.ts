import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { OWN_ACCOUNT_SUBJECTS, PRINCIPAL_EDGES, type Principal, type PrincipalEdge, type PrincipalSeal, type Subject } from '@verity/contracts';
import { z } from 'zod';

/**
 * Signed principals (docs/security.md, "The bus's trust boundary"). The edge that authenticated a request (the
 * gateway: an API key or a capture link's client secret; the console: a person) signs the principal it attaches,
 * with an Ed25519 key only it holds, over the principal, the request id and an expiry no later than the request's
 * deadline. Every service holds the edges' public keys and refuses, before any handler runs, a principal whose
 * signature is missing, unknown, wrong or expired, so a service's NATS credentials are not enough to act for an
 * organization: a service can only forward, unchanged and within its expiry, a principal an edge signed for the
 * request in hand. The one exception is named in NATS_GRANTS (`ownAccount`): the subjects a service calls on its own
 * account (jobs, sweeps, a data subject request's steps) take the unsigned principal that service builds.
 */

/** Longest a signature is valid for, whatever the request's deadline: a captured principal dies with its request. */
export const PRINCIPAL_SEAL_MAX_LIFETIME_MS = 5 * 60_000;

/** A key id: names one key of an edge, so that two can be valid during a rotation. */
const KID = /^[A-Za-z0-9_-]{1,40}$/;
/** The PKCS #8 wrapping of a 32-byte Ed25519 seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

const signingKey = z.string().refine((s) => /^[A-Za-z0-9_-]{1,40}:[A-Za-z0-9+/]{43}=$/.test(s.trim()) && Buffer.from(s.trim().split(':')[1]!, 'base64').length === 32, {
  message: 'must be <key id>:<32-byte Ed25519 seed in base64>, such as 2026a:<openssl rand -base64 32> (tools/scripts/region-secrets.sh makes one)',
});

const verifyKeys = z.string().superRefine((s, ctx) => {
  try {
    parseVerifyKeys(s);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
  }
});

/** The edges' variable: the private key it signs principals with. */
export const principalSigningEnv = {
  /** `<key id>:<Ed25519 seed, base64>`; the edge's own, never given to a service (docs/configuration.md). */
  PRINCIPAL_SIGNING_KEY: signingKey,
};

/** Every service's variable: the edges' public keys, by edge and key id. */
export const principalVerifyEnv = {
  /**
   * `<edge>/<key id>:<Ed25519 public key, base64url x>`, comma-separated (`gateway/2026a:…,console/2026a:…`): every key
   * of the gateway and the console whose signatures are accepted; two of an edge during a rotation.
   */
  PRINCIPAL_VERIFY_KEYS: verifyKeys,
};

/** One verify key as PRINCIPAL_VERIFY_KEYS lists it. */
export interface PrincipalVerifyKey {
  edge: PrincipalEdge;
  kid: string;
  /** The public key, base64url (the `x` of its JWK). */
  x: string;
}

/** Reads PRINCIPAL_VERIFY_KEYS; throws naming the entry that is not `<edge>/<key id>:<x>`. */
export function parseVerifyKeys(text: string): PrincipalVerifyKey[] {
  const out: PrincipalVerifyKey[] = [];
  for (const entry of text.split(',').map((e) => e.trim()).filter(Boolean)) {
    const m = /^([a-z]+)\/([^:]+):([A-Za-z0-9_-]{43})$/.exec(entry);
    if (!m || !(PRINCIPAL_EDGES as readonly string[]).includes(m[1]!) || !KID.test(m[2]!)) {
      throw new Error(`"${entry.slice(0, 60)}" is not <${PRINCIPAL_EDGES.join('|')}>/<key id>:<base64url Ed25519 public key>`);
    }
    if (out.some((k) => k.edge === m[1] && k.kid === m[2])) throw new Error(`${m[1]}/${m[2]} is listed twice`);
    out.push({ edge: m[1] as PrincipalEdge, kid: m[2]!, x: m[3]! });
  }
  if (out.length === 0) throw new Error('lists no key: at least the gateway\'s and the console\'s current ones');
  return out;
}

/** The bytes a seal signs: edge, key id, expiry, request id and the principal as it travels (JSON). */
export function principalSealText(edge: string, kid: string, exp: number, requestId: string, principal: Principal): Buffer {
  return Buffer.from(`verity-principal-v1\n${edge}\n${kid}\n${exp}\n${requestId}\n${JSON.stringify(principal)}`);
}

/** The seal a principal arrived with, once verified, so that the service forwards it with the principal. */
const seals = new WeakMap<object, PrincipalSeal>();

/**
 * The verified seal of a principal received in this process (by RpcServer or the internal HTTP server): a call
 * made with that very object carries it on (RpcClient). A principal built or copied (`{ ...p }`) has none.
 */
export function sealOf(principal: Principal): PrincipalSeal | undefined {
  return seals.get(principal);
}

/** Marks `principal` as arrived with `seal` (verified by the caller of this function). */
export function attachSeal(principal: Principal, seal: PrincipalSeal): void {
  seals.set(principal, seal);
}

/** An edge's signer: the gateway or the console, with its PRINCIPAL_SIGNING_KEY. */
export class PrincipalSigner {
  private readonly key: KeyObject;
  readonly kid: string;

  constructor(
    readonly edge: PrincipalEdge,
    signingKeyText: string,
  ) {
    const [kid, seed] = signingKeyText.trim().split(':') as [string, string];
    this.kid = kid;
    this.key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(seed, 'base64')]), format: 'der', type: 'pkcs8' });
  }

  /** The public half, as PRINCIPAL_VERIFY_KEYS lists it (`<edge>/<kid>:<x>`). */
  get verifyKey(): string {
    return `${this.edge}/${this.kid}:${(createPublicKey(this.key).export({ format: 'jwk' }) as { x: string }).x}`;
  }

  /** Signs `principal` for the request `requestId`, valid until `deadline` (at most PRINCIPAL_SEAL_MAX_LIFETIME_MS from now). */
  seal(principal: Principal, requestId: string, deadline: number, now = Date.now()): PrincipalSeal {
    const exp = Math.floor(Math.min(deadline, now + PRINCIPAL_SEAL_MAX_LIFETIME_MS));
    const sig = sign(null, principalSealText(this.edge, this.kid, exp, requestId, principal), this.key).toString('base64url');
    return { edge: this.edge, kid: this.kid, exp, sig };
  }
}

/** What a log line says of a refused seal: which edge and key it names (bounded), never the principal or the signature. */
export function sealLabel(seal: unknown): { edge?: string; kid?: string } {
  const s = (typeof seal === 'object' && seal !== null ? seal : {}) as Record<string, unknown>;
  return {
    ...(typeof s.edge === 'string' ? { edge: s.edge.slice(0, 20) } : {}),
    ...(typeof s.kid === 'string' ? { kid: s.kid.slice(0, 40) } : {}),
  };
}

/** Why a principal was refused (logged, never sent to the caller). */
export type PrincipalRefusal = 'unsigned' | 'malformed' | 'unknown_key' | 'bad_signature' | 'expired' | 'too_long';

/** Verifies principals against PRINCIPAL_VERIFY_KEYS. */
export class PrincipalVerifier {
  private readonly keys = new Map<string, KeyObject>();

  constructor(verifyKeysText: string) {
    for (const k of parseVerifyKeys(verifyKeysText)) {
      this.keys.set(`${k.edge}/${k.kid}`, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: k.x }, format: 'jwk' }));
    }
  }

  /** Null when `seal` is an edge's signature of `principal` for `requestId`, still valid at `now`; else why not. */
  check(principal: Principal, seal: unknown, requestId: string, now = Date.now()): PrincipalRefusal | null {
    if (seal === undefined || seal === null) return 'unsigned';
    const s = seal as Partial<PrincipalSeal>;
    if (typeof s !== 'object' || typeof s.edge !== 'string' || typeof s.kid !== 'string' || typeof s.sig !== 'string' || typeof s.exp !== 'number' || !Number.isSafeInteger(s.exp)) {
      return 'malformed';
    }
    const key = this.keys.get(`${s.edge}/${s.kid}`);
    if (!key) return 'unknown_key';
    if (s.exp > now + PRINCIPAL_SEAL_MAX_LIFETIME_MS) return 'too_long';
    const sig = Buffer.from(s.sig, 'base64url');
    if (sig.length !== 64 || !verify(null, principalSealText(s.edge, s.kid, s.exp, requestId, principal), key, sig)) return 'bad_signature';
    // checked after the signature, so that a forged expiry is reported as forged
    if (now > s.exp) return 'expired';
    return null;
  }

  /**
   * Whether a request on `subject` carrying `principal` (and `seal`) may reach a handler: a signed principal must verify
   * (and is then marked so that it is forwarded with its seal); an unsigned one is taken only on a subject a service
   * calls on its own account (`OWN_ACCOUNT_SUBJECTS`); no principal is the handler's business (`requirePrincipal`).
   */
  admit(subject: Subject | string, principal: Principal | null | undefined, seal: unknown, requestId: string, now = Date.now()): PrincipalRefusal | null {
    if (principal === null || principal === undefined) return null;
    if ((seal === undefined || seal === null) && OWN_ACCOUNT_SUBJECTS.has(subject as Subject)) return null;
    const refusal = this.check(principal, seal, requestId, now);
    if (refusal === null) attachSeal(principal, seal as PrincipalSeal);
    return refusal;
  }
}

/**
 * A fresh key pair of an edge: `signing` for its PRINCIPAL_SIGNING_KEY, `verify` for the services'
 * PRINCIPAL_VERIFY_KEYS (the local stack and tests make them per start; production's come from
 * tools/scripts/region-secrets.sh).
 */
export function newPrincipalKeyPair(edge: PrincipalEdge, kid: string): { signing: string; verify: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const der = privateKey.export({ format: 'der', type: 'pkcs8' });
  const signing = `${kid}:${der.subarray(der.length - 32).toString('base64')}`;
  return { signing, verify: new PrincipalSigner(edge, signing).verifyKey };
}
