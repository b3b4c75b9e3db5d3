import { readFile } from 'node:fs/promises';

let installed = false;

/**
 * Makes `fetch` in this thread serve `file:` URLs from disk and refuse everything else, loudly. The face models
 * are loaded with `fetch` (Node's own does not read `file:` URLs), and nothing the reader does may reach the
 * network: models, language data and WebAssembly all come from installed packages.
 */
export function installOfflineFetch(): void {
  if (installed) return;
  installed = true;
  globalThis.fetch = async (input: string | URL | Request): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url.startsWith('file://')) return new Response(await readFile(new URL(url)), { status: 200 });
    throw new Error(`the document reader works offline; it refused to fetch ${url}`);
  };
}
