/** A small HTTP client for end-to-end tests: what a client of the API would see. */
export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function api<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; rawBody?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | Uint8Array | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export async function waitFor<T>(fn: () => Promise<T | undefined | false>, timeoutMs: number, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  // the pause grows by half each time, up to half a second: a quick condition is seen at once, and a long wait
  // (a lease running out, a retry's delay) does not ask the services hundreds of times meanwhile
  for (let pause = intervalMs; ; pause = Math.min(Math.max(intervalMs, 500), pause * 1.5)) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

/**
 * Rate-limit windows are fixed and aligned to the epoch minute: a test that counts within one window waits for
 * the next minute when fewer than `seconds` remain in the current one.
 */
export async function freshWindow(seconds = 15): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((r) => setTimeout(r, left + 50));
}
