import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { SUBJECTS } from '@verity/contracts';
import { isId } from '@verity/keys';
import { requirePrincipal, RpcServer } from '@verity/platform';
import { SessionsRepository } from '../sessions/sessions.repository.js';

/**
 * `sessions.exists.v1`, asked by the billing settle sweep of accounts: whether a session exists for the
 * principal's organization and mode. A session of another owner does not exist for it, like everywhere else.
 * `sessions.visible.v1` answers the same to evidence, for the signed principal of a request it serves.
 */
@Injectable()
export class SessionExistsRpc implements OnApplicationBootstrap {
  constructor(
    @Inject(RpcServer) private readonly server: RpcServer,
    private readonly repo: SessionsRepository,
  ) {}

  onApplicationBootstrap(): void {
    for (const subject of [SUBJECTS.sessionsExists, SUBJECTS.sessionsVisible] as const) {
      this.server.handle(subject, async (p, ctx) => {
        const owner = requirePrincipal(ctx);
        return { exists: isId('session', p?.session_id) && (await this.repo.find(owner, p.session_id)) !== null };
      });
    }
  }
}
