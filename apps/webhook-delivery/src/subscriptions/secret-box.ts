import { aead } from '@verity/keys';

/**
 * Encryption at rest of subscription signing secrets (they must stay usable for signing, so they are not hashed):
 * AES-256-GCM under WEBHOOK_SECRET_KEY, with the subscription id as associated data, so a sealed value copied onto
 * another subscription does not open. Sealed form: `v1.<base64 nonce ‖ tag ‖ ciphertext>`.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('WEBHOOK_SECRET_KEY must be 32 bytes');
    this.key = Buffer.from(key);
  }

  /** The key as configured: 32 bytes in standard base64. */
  static fromBase64(text: string): SecretBox {
    return new SecretBox(Buffer.from(text, 'base64'));
  }

  seal(plaintext: string, associatedData: string): string {
    return `v1.${aead.seal(this.key, Buffer.from(plaintext), Buffer.from(associatedData)).toString('base64')}`;
  }

  /** Throws when the value was not sealed under this key for this associated data. */
  open(sealed: string, associatedData: string): string {
    const [version, payload] = sealed.split('.');
    if (version !== 'v1' || !payload) throw new Error('unsupported sealed secret');
    return aead.open(this.key, Buffer.from(payload, 'base64'), Buffer.from(associatedData)).toString('utf8');
  }
}

/** True for 32 bytes in standard base64 (44 characters with the padding). */
export function isSecretKey(text: string): boolean {
  return /^[A-Za-z0-9+/]{43}=$/.test(text) && Buffer.from(text, 'base64').length === 32;
}
