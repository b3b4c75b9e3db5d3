import type { KeyType, Mode, Region } from './types.js';

/** What a key says about itself (docs/authentication.md): `idv_{sk|pk}_{us|eu}_{live|test}_<43 alphanumerics>`. */
export interface KeyInfo {
  type: KeyType;
  region: Region;
  mode: Mode;
}

const KEY_RE = /^idv_(sk|pk)_(us|eu)_(live|test)_[A-Za-z0-9]{43}$/;

/** Reads type, region and mode from a key's own text; throws on anything that is not a key (never echoing it). */
export function parseKey(apiKey: string): KeyInfo {
  const m = typeof apiKey === 'string' ? KEY_RE.exec(apiKey) : null;
  if (!m) throw new TypeError('apiKey is not a Verity API key (expected idv_{sk|pk}_{us|eu}_{live|test}_ followed by 43 letters or digits)');
  return { type: m[1] as KeyType, region: m[2] as Region, mode: m[3] as Mode };
}
