import { aead } from '@verity/keys';

/** The prefix of a sealed TOTP secret; a stored value without it is one written before secrets were sealed. */
const SEALED = 'v1.';

/**
 * Encryption at rest of console TOTP secrets (docs/security.md, "Console roles"): they must stay usable to check
 * codes, so they are not hashed. AES-256-GCM under CONSOLE_TOTP_KEY, with the person's id as associated data, so a
 * sealed secret copied onto another person does not open. Sealed form: `v1.<base64 nonce ‖ tag ‖ ciphertext>`.
 */
export class TotpBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('CONSOLE_TOTP_KEY must be 32 bytes');
    this.key = Buffer.from(key);
  }

  /** The key as configured: 32 bytes in standard base64. */
  static fromBase64(text: string): TotpBox {
    return new TotpBox(Buffer.from(text, 'base64'));
  }

  seal(secret: string, userId: string): string {
    return `${SEALED}${aead.seal(this.key, Buffer.from(secret), Buffer.from(userId)).toString('base64')}`;
  }

  /** Throws when the value was not sealed under this key for this person. */
  open(sealed: string, userId: string): string {
    if (!isSealed(sealed)) throw new Error('not a sealed TOTP secret');
    return aead.open(this.key, Buffer.from(sealed.slice(SEALED.length), 'base64'), Buffer.from(userId)).toString('utf8');
  }
}

/** Whether a stored value is sealed (else it was stored in clear by an earlier release, and is sealed at start). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED);
}

/** True for 32 bytes in standard base64 (44 characters with the padding). */
export function isTotpKey(text: string): boolean {
  return /^[A-Za-z0-9+/]{43}=$/.test(text) && Buffer.from(text, 'base64').length === 32;
}
