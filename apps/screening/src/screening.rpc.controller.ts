import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { CONSOLE_ACTION_ROLES, SUBJECTS } from '@verity/contracts';
import { requireConsolePerson, requireOperator, requirePrincipal, RpcServer } from '@verity/platform';
import { EvaluationService } from './evaluation/evaluation.service.js';
import { TemplatesPurgeService } from './templates/purge.service.js';
import { TemplatesService } from './templates/templates.service.js';
import { WatchlistCheck } from './watchlists/watchlist-check.service.js';
import { WatchlistsService } from './watchlists/watchlists.service.js';

@Injectable()
export class ScreeningRpcController implements OnApplicationBootstrap {
  constructor(
    @Inject(RpcServer) private readonly server: RpcServer,
    private readonly templates: TemplatesService,
    private readonly evaluation: EvaluationService,
    private readonly purge: TemplatesPurgeService,
    private readonly watchlists: WatchlistsService,
    private readonly watchlistCheck: WatchlistCheck,
  ) {}

  onApplicationBootstrap(): void {
    this.server.handle(SUBJECTS.templatesCreate, (p, ctx) => this.templates.create(requirePrincipal(ctx), p.body, ctx));
    this.server.handle(SUBJECTS.templatesGet, (p, ctx) => this.templates.get(requirePrincipal(ctx), p.id));
    this.server.handle(SUBJECTS.templatesList, (p, ctx) => this.templates.list(requirePrincipal(ctx), p));
    this.server.handle(SUBJECTS.templatesUpdate, (p, ctx) => this.templates.update(requirePrincipal(ctx), p.id, p.body, ctx));
    this.server.handle(SUBJECTS.templatesVersion, (p, ctx) => this.templates.version(requirePrincipal(ctx), p.id, p.version));
    this.server.handle(SUBJECTS.screeningEvaluate, (p, ctx) =>
      this.evaluation.evaluate(requirePrincipal(ctx), p.template_id, p.version, p.context),
    );
    this.server.handle(SUBJECTS.screeningWatchlistScreen, (p, ctx) => (requirePrincipal(ctx), this.watchlistCheck.run(p)));
    // operator tooling: no principal
    this.server.handle(SUBJECTS.screeningPurgeTestData, (p, ctx) => this.purge.purgeTestData(p, requireOperator(ctx)));
    // the console's Test data page, for the organization of the principal it signed
    this.server.handle(SUBJECTS.screeningConsolePurgeTestData, (_p, ctx) =>
      this.purge.purgeTestData({ org_id: requireConsolePerson(ctx, CONSOLE_ACTION_ROLES.testData).principal.org_id }, ctx),
    );
    this.server.handle(SUBJECTS.screeningListsLoadBegin, (p, ctx) => this.watchlists.begin(p, requireOperator(ctx)));
    this.server.handle(SUBJECTS.screeningListsLoadBatch, (p, ctx) => (requireOperator(ctx), this.watchlists.batch(p)));
    this.server.handle(SUBJECTS.screeningListsLoadCommit, (p, ctx) => this.watchlists.commit(p, requireOperator(ctx)));
    this.server.handle(SUBJECTS.screeningListsLoadAbort, (p, ctx) => this.watchlists.abort(p, requireOperator(ctx)));
    this.server.handle(SUBJECTS.screeningListsStatus, (_p, ctx) => (requireOperator(ctx), this.watchlists.status()));
  }
}
