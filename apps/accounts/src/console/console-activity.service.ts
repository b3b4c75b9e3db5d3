import { Injectable } from '@nestjs/common';
import type { ConsoleActivityEntry, ConsoleActivityListRequest, ConsoleActivityRecordRequest } from '@verity/contracts';
import { isId, newId } from '@verity/keys';
import { OrganizationsRepository } from '../organizations/organizations.repository.js';
import { ConsoleActivityRepository } from './console-activity.repository.js';
import { existingOrg } from './existing-org.js';
import { activityOf, invalid, limitOf } from './console-validation.js';

export const ACTIVITY_LIST_DEFAULT = 20;
export const ACTIVITY_LIST_MAX = 100;

/** The console's log of changes, with who made them (docs/console.md): written by the console after each change. */
@Injectable()
export class ConsoleActivityService {
  constructor(
    private readonly activity: ConsoleActivityRepository,
    private readonly orgs: OrganizationsRepository,
  ) {}

  async record(req: ConsoleActivityRecordRequest): Promise<ConsoleActivityEntry> {
    const entry = activityOf(req);
    const org = await existingOrg(this.orgs, req.org_id);
    return this.activity.insert(newId('activity'), { org_id: org.id, ...entry });
  }

  /** Newest first; `before` is the last entry of the previous page. */
  async list(req: ConsoleActivityListRequest): Promise<{ data: ConsoleActivityEntry[] }> {
    const limit = limitOf(req.limit, ACTIVITY_LIST_DEFAULT, ACTIVITY_LIST_MAX);
    const org = await existingOrg(this.orgs, req.org_id);
    let position: string | null = null;
    if (req.before !== undefined && req.before !== null) {
      position = isId('activity', req.before) ? await this.activity.positionOf(org.id, req.before) : null;
      if (position === null) throw invalid('before', "before must be the id of an entry of the organization's activity");
    }
    return { data: await this.activity.list(org.id, limit, position) };
  }
}
