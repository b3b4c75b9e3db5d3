import { Inject, Injectable } from '@nestjs/common';
import {
  WATCHLIST_BATCH_MAX,
  WATCHLIST_ID_FORMAT,
  type WatchlistLoadAbortRequest,
  type WatchlistLoadBatchReply,
  type WatchlistLoadBatchRequest,
  type WatchlistLoadBeginReply,
  type WatchlistLoadBeginRequest,
  type WatchlistLoadCommitReply,
  type WatchlistLoadCommitRequest,
  type WatchlistStatusReply,
} from '@verity/contracts';
import { parseBody } from '@verity/errors';
import { assertBeforeDeadline, LOGGER, type Logger, type RpcContext } from '@verity/platform';
import { ENTITY_LIMITS, LIST_FORMATS, partyKeys } from '@verity/watchlist';
import { z } from 'zod';
import { WatchlistHandoverJob } from './watchlist-handover.job.js';
import { WatchlistPurgeJob } from './watchlist-purge.job.js';
import { WatchlistsRepository } from './watchlists.repository.js';

const list = z.string().regex(WATCHLIST_ID_FORMAT, 'must be 1 to 64 lower-case letters, digits, "-" or "_", starting with a letter or digit');
const version = z.number().int().min(1);
const DATE = /^\d{4}(-\d{2}(-\d{2})?)?$/;

const entity = z.strictObject({
  entity_id: z.string().min(1).max(ENTITY_LIMITS.idLength),
  names: z.array(z.string().min(1).max(ENTITY_LIMITS.nameLength)).min(1).max(ENTITY_LIMITS.names),
  dates_of_birth: z.array(z.string().regex(DATE)).max(ENTITY_LIMITS.datesOfBirth),
  nationalities: z.array(z.string().regex(/^[A-Z]{2}$/)).max(ENTITY_LIMITS.nationalities),
});

const beginSchema = z.strictObject({ list, format: z.enum(LIST_FORMATS), source: z.string().min(1).max(255) });
const batchSchema = z.strictObject({
  list,
  version,
  first_seq: z.number().int().min(0).max(2 ** 31 - 1 - WATCHLIST_BATCH_MAX),
  entities: z.array(entity).min(1).max(WATCHLIST_BATCH_MAX),
});
const commitSchema = z.strictObject({
  list,
  version,
  entities: z.number().int().min(0).max(2 ** 31 - 1),
  published_on: z.iso.date().nullable(),
  skipped: z.record(z.string().regex(/^[a-z_]{1,32}$/), z.number().int().min(0)).refine((r) => Object.keys(r).length <= 16, 'at most 16 reasons'),
});
const abortSchema = z.strictObject({ list, version, reason: z.string().max(2000) });

/**
 * Loading lists (operator, docs/watchlist.md): the admin tool reads the file as a stream and sends its persons in
 * batches into a new version of the list, then commits it; screening reads only committed versions. Retired and
 * abandoned versions are cleared in the background (`watchlist-purge.job.ts`).
 */
@Injectable()
export class WatchlistsService {
  constructor(
    private readonly repo: WatchlistsRepository,
    @Inject(LOGGER) private readonly log: Logger,
    private readonly purger: WatchlistPurgeJob,
    private readonly monitor: WatchlistHandoverJob,
  ) {}

  async begin(body: WatchlistLoadBeginRequest, ctx: RpcContext): Promise<WatchlistLoadBeginReply> {
    const req = parseBody(beginSchema, body);
    const v = await this.repo.begin(req.list, req.format, req.source, () => assertBeforeDeadline(ctx));
    this.log.info({ list: req.list, version: v, format: req.format, request_id: ctx.requestId }, 'watchlist load started');
    return { list: req.list, version: v };
  }

  async batch(body: WatchlistLoadBatchRequest): Promise<WatchlistLoadBatchReply> {
    const req = parseBody(batchSchema, body);
    const keyed = req.entities.map((e) => ({ ...e, keys: partyKeys(e.names, e.dates_of_birth) }));
    return { stored: await this.repo.insertBatch(req.list, req.version, req.first_seq, keyed) };
  }

  async commit(body: WatchlistLoadCommitRequest, ctx: RpcContext): Promise<WatchlistLoadCommitReply> {
    const req = parseBody(commitSchema, body);
    const { status, replaced } = await this.repo.commit(req.list, req.version, req.entities, { published_on: req.published_on, skipped: req.skipped }, () =>
      assertBeforeDeadline(ctx),
    );
    this.log.info({ list: req.list, version: req.version, entities: status.entities, replaced, request_id: ctx.requestId }, 'watchlist load committed');
    this.purger.kick();
    // approved live sessions are screened against the new version in the background (docs/watchlist.md, "Monitoring")
    this.monitor.kick();
    return { ...status, replaced_entities: replaced };
  }

  async abort(body: WatchlistLoadAbortRequest, ctx: RpcContext): Promise<{ abandoned: true }> {
    const req = parseBody(abortSchema, body);
    const was = await this.repo.abort(req.list, req.version);
    this.log.info({ list: req.list, version: req.version, was_open: was, reason: req.reason.slice(0, 300), request_id: ctx.requestId }, 'watchlist load abandoned');
    this.purger.kick();
    return { abandoned: true };
  }

  async status(): Promise<WatchlistStatusReply> {
    return { object: 'list', data: await this.repo.status() };
  }
}
