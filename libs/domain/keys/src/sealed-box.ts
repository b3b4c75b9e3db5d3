import * as aead from './aead.js';

/** The prefix of a sealed value: a stored value without it was stored in clear (before values were sealed). */
const SEALED = 'v1.';

/**
 * Encryption at rest of a secret that must stay usable (a webhook signing secret, a console person's TOTP secret),
 * so it cannot be hashed: AES-256-GCM under a key of the service's configuration, with the owner's id as associated
 * data, so a sealed value copied onto another owner does not open. Sealed form: `v1.<base64 nonce ‖ tag ‖ ciphertext>`.
 * Each service extends it with a class of its own (its dependency-injection token) naming its key's variable.
 */
export class SealedBox {
  private readonly key: Buffer;

  constructor(key: Buffer, keyName = 'the key') {
    if (key.length !== 32) throw new Error(`${keyName} must be 32 bytes`);
    this.key = Buffer.from(key);
  }

  seal(plaintext: string, owner: string): string {
    return `${SEALED}${aead.seal(this.key, Buffer.from(plaintext), Buffer.from(owner)).toString('base64')}`;
  }

  /** Throws when the value was not sealed under this key for this owner. */
  open(sealed: string, owner: string): string {
    if (!isSealed(sealed)) throw new Error('not a sealed value');
    return aead.open(this.key, Buffer.from(sealed.slice(SEALED.length), 'base64'), Buffer.from(owner)).toString('utf8');
  }
}

/** Whether a stored value is sealed (else it was stored in clear). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED);
}

/** A box key as configured: true for 32 bytes in standard base64 (44 characters with the padding). */
export function isBoxKey(text: string): boolean {
  return /^[A-Za-z0-9+/]{43}=$/.test(text) && Buffer.from(text, 'base64').length === 32;
}
