import { lookup, Resolver } from 'node:dns/promises';
import { buildConnector } from 'undici';
import { classifyAddress, classifyHost, isAllowedRange, type AddressRange } from './classify.js';

/** A destination the guard refused, or a name that did not resolve. */
export class DestinationError extends Error {
  constructor(
    readonly code: 'blocked_destination' | 'dns_error',
    message: string,
  ) {
    super(message);
    this.name = 'DestinationError';
  }
}

/**
 * Name servers given as `address[:port]`, comma-separated, as a resolver; null when none are named (the operating
 * system's resolver is used). Throws on a malformed entry.
 */
export function resolverOf(servers: string): Resolver | null {
  const list = servers.split(',').map((x) => x.trim()).filter(Boolean);
  if (list.length === 0) return null;
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers(list);
  return resolver;
}

/**
 * What a refusal of a loopback or private receiver says: the setting that allows one, for the operator of a local
 * stack (docs/webhooks.md); a region in production keeps it off.
 */
const PRIVATE_HINT = 'receivers must be on the public internet, unless the region runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (local development and tests only)';

/**
 * The SSRF guard: resolves a host and checks EVERY address it resolves to; one refused address refuses the host.
 * The checked addresses are the only ones a connection may use, so an answer that changes between the check and
 * the connection (DNS rebinding) cannot lead it elsewhere.
 */
export class DestinationGuard {
  /** `resolver` null: the operating system's resolver (`getaddrinfo`, which also reads /etc/hosts). */
  constructor(
    private readonly allowPrivateNetworks: boolean,
    private readonly resolver: Resolver | null = null,
  ) {}

  async addresses(hostname: string): Promise<string[]> {
    const host = classifyHost(hostname);
    if (host.kind === 'invalid') throw new DestinationError('blocked_destination', 'the host is not a valid host name or address');
    if (host.kind === 'ip') {
      this.check(host.address.address, host.address.range);
      return [host.address.address];
    }
    if (host.kind === 'loopback_name' && !this.allowPrivateNetworks) {
      throw new DestinationError('blocked_destination', `${hostname} is a loopback name: ${PRIVATE_HINT}`);
    }
    const name = host.kind === 'name' ? host.name : hostname;
    let resolved: string[];
    try {
      resolved = this.resolver ? await resolveBoth(this.resolver, name) : (await lookup(name, { all: true, verbatim: true })).map((r) => r.address);
    } catch (e) {
      throw new DestinationError('dns_error', `${name} did not resolve (${(e as { code?: string }).code ?? 'error'})`);
    }
    if (resolved.length === 0) throw new DestinationError('dns_error', `${name} has no address`);
    return resolved.map((address) => {
      const c = classifyAddress(address);
      if (!c) throw new DestinationError('blocked_destination', `${name} resolved to an unusable address`);
      this.check(c.address, c.range, name);
      return c.address;
    });
  }

  /** An undici `connect` option: every new connection goes to an address this guard checked. */
  connector(timeoutMs: number): buildConnector.connector {
    const base = buildConnector({ timeout: timeoutMs });
    return (opts, callback) => {
      this.addresses(opts.hostname).then(
        (addresses) => connectFirst(base, opts, addresses, 0, callback),
        (e: Error) => callback(e, null),
      );
    };
  }

  private check(address: string, range: AddressRange, name?: string): void {
    if (!isAllowedRange(range, this.allowPrivateNetworks)) {
      const what = name ? `${name} resolves to ${address}` : address;
      // a range the setting does not open (instance metadata, multicast, …) is refused whatever it says: naming it would mislead
      const hint = isAllowedRange(range, true) ? PRIVATE_HINT : 'receivers must be on the public internet';
      throw new DestinationError('blocked_destination', `${what}, a ${range.replace('_', '-')} address: ${hint}`);
    }
  }
}

/** The A and AAAA records of `name`; fails only when neither family has an answer. */
async function resolveBoth(resolver: Resolver, name: string): Promise<string[]> {
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
  if (v4.status === 'rejected' && v6.status === 'rejected') throw v4.reason;
  return [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
}

const RETRY_NEXT_ADDRESS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** Opens the connection to the first checked address that answers, trying the next on refusal or no route. */
function connectFirst(
  base: buildConnector.connector,
  opts: buildConnector.Options,
  addresses: string[],
  i: number,
  callback: buildConnector.Callback,
): void {
  base({ ...opts, hostname: addresses[i]! }, (err, socket) => {
    const code = (err as { code?: string } | null)?.code;
    if (err && i + 1 < addresses.length && code && RETRY_NEXT_ADDRESS.has(code)) {
      connectFirst(base, opts, addresses, i + 1, callback);
      return;
    }
    if (err) callback(err, null);
    else callback(null, socket!);
  });
}
