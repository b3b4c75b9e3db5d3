import { Module } from '@nestjs/common';
import { EvaluationService } from './evaluation/evaluation.service.js';
import { ScreeningRpcController } from './screening.rpc.controller.js';
import { TemplatesPurgeService } from './templates/purge.service.js';
import { TemplatesRepository } from './templates/templates.repository.js';
import { TemplatesService } from './templates/templates.service.js';
import { WatchlistCheck } from './watchlists/watchlist-check.service.js';
import { WatchlistHandoverJob } from './watchlists/watchlist-handover.job.js';
import { WatchlistPurgeJob } from './watchlists/watchlist-purge.job.js';
import { WatchlistScreening } from './watchlists/watchlist-screening.service.js';
import { WatchlistsRepository } from './watchlists/watchlists.repository.js';
import { WatchlistsService } from './watchlists/watchlists.service.js';

@Module({ providers: [TemplatesRepository, TemplatesService, EvaluationService, TemplatesPurgeService, WatchlistsRepository, WatchlistHandoverJob, WatchlistPurgeJob, WatchlistsService, WatchlistScreening, WatchlistCheck, ScreeningRpcController] })
export class ScreeningModule {}
