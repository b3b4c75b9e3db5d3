import { Injectable } from '@nestjs/common';
import type { UsageRow } from '@verity/contracts';
import { UsageRepository } from './usage.repository.js';
import { validateUsageRequest } from './usage.validation.js';

/** `sessions.admin.usage.v1` (operator): sessions created per UTC day, mode and check, for the console's usage page. */
@Injectable()
export class UsageService {
  constructor(private readonly repo: UsageRepository) {}

  /** Days without a session are absent; ordered by day, then mode (`live` before `test`), then check. */
  async usage(req: unknown): Promise<{ data: UsageRow[] }> {
    const { org_id, from, to } = validateUsageRequest(req);
    return { data: await this.repo.daily(org_id, from, to) };
  }
}
