/**
 * The headers of every /verify response. The policy loads nothing from another origin, runs no inline script or
 * style, and lets the page show its own camera frames and photos (`blob:`), talk only to its own origin, and
 * never be framed. `data:` images are not needed by the page and are left out. `'wasm-unsafe-eval'` lets the face
 * guide compile its own origin's WebAssembly (TensorFlow.js's backend); it allows no `eval`, no `new Function` and no
 * inline script. No worker is started: `default-src 'none'` refuses them.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Security headers of pages and assets alike. The page's URL carries the client secret: no referrer leaves it. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  // the camera for this origin only; nothing else the page does not use
  'permissions-policy': 'camera=(self), microphone=(), geolocation=(), payment=(), usb=()',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** HTML pages: never stored, by the browser or anything between. */
export const PAGE_CACHE_CONTROL = 'no-store';
/** Static assets: the same for everyone, versioned by the page's links. */
export const ASSET_CACHE_CONTROL = 'public, max-age=3600';
