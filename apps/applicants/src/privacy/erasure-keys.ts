import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { ErasureCertificatePayload, ErasureKeySet } from '@verity/contracts';
import { calculateJwkThumbprint, SignJWT } from 'jose';

type Jwk = ErasureKeySet['keys'][number];

/** The PKCS #8 wrapping of a 32-byte Ed25519 seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The region's erasure keys: the current one signs certificates, every one (current and retired) is published
 * as a JWKS. A key's `kid` is its RFC 7638 thumbprint, so it names the key itself and never changes.
 */
export class ErasureKeys {
  private constructor(
    private readonly signing: KeyObject,
    private readonly kid: string,
    readonly keySet: ErasureKeySet,
  ) {}

  static async load(signingSeedBase64: string, retiredPublicX: readonly string[]): Promise<ErasureKeys> {
    const signing = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(signingSeedBase64, 'base64')]), format: 'der', type: 'pkcs8' });
    const current = createPublicKey(signing).export({ format: 'jwk' }) as { x: string };
    const xs = [current.x, ...retiredPublicX.filter((x) => x !== current.x)];
    const keys: Jwk[] = [];
    for (const x of xs) keys.push({ kty: 'OKP', crv: 'Ed25519', x, kid: await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x }), alg: 'EdDSA', use: 'sig' });
    return new ErasureKeys(signing, keys[0]!.kid, { keys });
  }

  /** A compact JWS (EdDSA) over the payload, naming the signing key. */
  sign(payload: ErasureCertificatePayload): Promise<string> {
    return new SignJWT({ ...payload }).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: this.kid }).sign(this.signing);
  }
}
