import { isBoxKey, SealedBox } from '@verity/keys';

/** Subscription signing secrets sealed at rest under WEBHOOK_SECRET_KEY, each bound to its subscription's id. */
export class SecretBox extends SealedBox {
  constructor(key: Buffer) {
    super(key, 'WEBHOOK_SECRET_KEY');
  }

  /** The key as configured: 32 bytes in standard base64. */
  static fromBase64(text: string): SecretBox {
    return new SecretBox(Buffer.from(text, 'base64'));
  }
}

export const isSecretKey = isBoxKey;
