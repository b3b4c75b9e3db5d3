import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Encryption at rest of subscription signing secrets (they must stay usable for signing, so they are not
 * hashed): AES-256-GCM under WEBHOOK_SECRET_KEY, a fresh 12-byte nonce per value, and the subscription id as
 * associated data, so a sealed value copied onto another subscription does not open.
 * Sealed form: `v1.<base64 nonce ‖ tag ‖ ciphertext>`.
 */
const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

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
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(associatedData));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([nonce, cipher.getAuthTag(), ct]).toString('base64')}`;
  }

  /** Throws when the value was not sealed under this key for this associated data. */
  open(sealed: string, associatedData: string): string {
    const [version, payload] = sealed.split('.');
    if (version !== VERSION || !payload) throw new Error('unsupported sealed secret');
    const raw = Buffer.from(payload, 'base64');
    if (raw.length <= NONCE_BYTES + TAG_BYTES) throw new Error('sealed secret too short');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

/** True for 32 bytes in standard base64 (44 characters with the padding). */
export function isSecretKey(text: string): boolean {
  return /^[A-Za-z0-9+/]{43}=$/.test(text) && Buffer.from(text, 'base64').length === 32;
}
