import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { EVENTS, SUBJECTS, type Owner, type TemplateVersion } from '@verity/contracts';
import { CONFIG, RpcClient, type CallOptions } from '@verity/platform';
import { LRUCache } from 'lru-cache';
import type { SessionsConfig } from '../config.js';

/**
 * The template version a new session pins (its checks and signing document with it), cached per owner and
 * template: creating sessions against the same template is the API's hot path, and a pin changes only
 * when the template gets a new version. The screening service publishes `template-changed` before it answers
 * the change, on the connection it answers on, so a create sent after the caller saw that answer arrives
 * behind the event and pins the new version. Entries also expire after `TEMPLATE_PIN_CACHE_TTL_MS` and are
 * all dropped when the NATS connection is lost (events may have been missed); a TTL of 0 caches nothing. A
 * lookup in flight while any template changed is not cached (it may have read the version before the change).
 * Unknown templates are never cached.
 */
@Injectable()
export class TemplatePins implements OnApplicationBootstrap {
  private readonly cache: LRUCache<string, TemplateVersion> | null;
  /** Bumped on every change event and connection loss. */
  private generation = 0;

  constructor(
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(CONFIG) cfg: SessionsConfig,
  ) {
    const ttl = cfg.TEMPLATE_PIN_CACHE_TTL_MS;
    this.cache = ttl > 0 ? new LRUCache({ max: 10_000, ttl }) : null;
  }

  onApplicationBootstrap(): void {
    this.rpc.subscribe(EVENTS.templateChanged, (e) => {
      this.generation++;
      this.cache?.delete(keyOf(e, e.template_id));
    });
    this.rpc.onConnectionGap(() => {
      this.generation++;
      this.cache?.clear();
    });
  }

  /** The pin, from the cache or the screening service (errors, 404 included, pass through). */
  async get(owner: Owner, id: string, opts: CallOptions): Promise<TemplateVersion> {
    const key = keyOf(owner, id);
    const hit = this.cache?.get(key);
    if (hit) return hit;
    const generation = this.generation;
    const pin = await this.rpc.call(SUBJECTS.templatesVersion, { id }, opts);
    if (generation === this.generation) this.cache?.set(key, pin);
    return pin;
  }
}

function keyOf(owner: Owner, templateId: string): string {
  return `${owner.org_id}:${owner.mode}:${templateId}`;
}
