import { isBoxKey, SealedBox } from '@verity/keys';

export { isSealed } from '@verity/keys';

/**
 * Console TOTP secrets sealed at rest under CONSOLE_TOTP_KEY, each bound to its person's id (docs/security.md,
 * "Console roles"): they must stay usable to check codes, so they are not hashed.
 */
export class TotpBox extends SealedBox {
  constructor(key: Buffer) {
    super(key, 'CONSOLE_TOTP_KEY');
  }

  /** The key as configured: 32 bytes in standard base64. */
  static fromBase64(text: string): TotpBox {
    return new TotpBox(Buffer.from(text, 'base64'));
  }
}

export const isTotpKey = isBoxKey;
