import { Inject, Injectable } from '@nestjs/common';
import { EVENTS, type ApiKeyRecord, type CreatedApiKey, type KeyCreateRequest, type KeyListRequest, type Principal } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { generateApiKey, hashApiKey, isId, isScope, newId, type Region, type Scope } from '@verity/keys';
import { CONFIG, RpcClient, type ServiceConfig } from '@verity/platform';
import { existingOrg } from '../console/existing-org.js';
import { billingOf, OrganizationsRepository } from '../organizations/organizations.repository.js';
import { KeysRepository, type KeyRow } from './keys.repository.js';

function invalid(param: string, message: string): DomainError {
  return DomainError.validation([{ code: 'invalid_value', message, path: [param] }], message);
}

@Injectable()
export class KeysService {
  constructor(
    private readonly keys: KeysRepository,
    private readonly orgs: OrganizationsRepository,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(CONFIG) private readonly cfg: ServiceConfig,
  ) {}

  private record(row: KeyRow): ApiKeyRecord {
    return {
      id: row.id,
      object: 'api_key',
      org_id: row.org_id,
      type: row.type,
      mode: row.mode,
      region: this.cfg.REGION as Region,
      scopes: row.scopes,
      revoked: row.revoked_at !== null,
      created_at: row.created_at.toISOString(),
    };
  }

  async verify(keyHash: string): Promise<Principal | null> {
    if (!/^[0-9a-f]{64}$/.test(keyHash)) return null;
    const found = await this.keys.findActiveByHash(keyHash);
    if (!found) return null;
    const { key, org } = found;
    return {
      org_id: org.id,
      key_id: key.id,
      key_type: key.type,
      mode: key.mode,
      region: org.region,
      scopes: key.scopes,
      tier: org.tier,
      custom_limits: org.custom_limits,
      billing: billingOf(org),
    };
  }

  async create(req: KeyCreateRequest): Promise<CreatedApiKey> {
    if (req.mode !== 'test' && req.mode !== 'live') throw invalid('mode', 'mode must be test or live');
    if (req.type !== 'sk' && req.type !== 'pk') throw invalid('type', 'type must be sk or pk');
    if (!Array.isArray(req.scopes)) throw invalid('scopes', 'scopes must be a list');
    const unknown = req.scopes.filter((s) => typeof s !== 'string' || !isScope(s));
    if (unknown.length > 0) throw invalid('scopes', `unknown scope: ${unknown.map(String).join(', ')}`);
    const scopes = [...new Set(req.scopes)] as Scope[];
    const org = isId('org', req.org_id) ? await this.orgs.find(req.org_id) : null;
    if (!org) throw DomainError.notFound('org');
    const key = generateApiKey(req.type, this.cfg.REGION as Region, req.mode);
    const row = await this.keys.insert({ id: newId('key'), orgId: org.id, type: req.type, mode: req.mode, scopes, hash: hashApiKey(key) });
    return { ...this.record(row), key };
  }

  /** An organization's keys, newest first, revoked ones too (the console's key page); never a secret. */
  async list(req: KeyListRequest): Promise<{ data: ApiKeyRecord[] }> {
    if (req.mode !== undefined && req.mode !== null && req.mode !== 'test' && req.mode !== 'live') throw invalid('mode', 'mode must be test or live');
    const org = await existingOrg(this.orgs, req.org_id);
    const rows = await this.keys.listByOrg(org.id, req.mode ?? null);
    return { data: rows.map((row) => this.record(row)) };
  }

  /** An active key by id (its organization and mode for the caller to check), or null. */
  async findActive(keyId: unknown): Promise<KeyRow | null> {
    return isId('key', keyId) ? this.keys.findActive(keyId) : null;
  }

  async revoke(keyId: string): Promise<ApiKeyRecord> {
    const row = isId('key', keyId) ? await this.keys.revoke(keyId) : null;
    if (!row) throw DomainError.notFound('key');
    this.rpc.publish(EVENTS.keyInvalidated, { key_id: row.id, org_id: row.org_id });
    return this.record(row);
  }

  async rotate(keyId: string): Promise<CreatedApiKey> {
    if (!isId('key', keyId)) throw DomainError.notFound('key');
    // the type and mode of the key are kept: read them back from the row we rotate
    const current = await this.keys.findActive(keyId);
    if (!current) throw DomainError.notFound('key');
    const key = generateApiKey(current.type, this.cfg.REGION as Region, current.mode);
    const row = await this.keys.rotate(keyId, hashApiKey(key));
    if (!row) throw DomainError.notFound('key');
    this.rpc.publish(EVENTS.keyInvalidated, { key_id: row.id, org_id: row.org_id });
    return { ...this.record(row), key };
  }
}
