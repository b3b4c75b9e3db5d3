import { Inject, Injectable } from '@nestjs/common';
import type { WatchlistScreenReply, WatchlistScreenRequest } from '@verity/contracts';
import { parseBody } from '@verity/errors';
import { CONFIG } from '@verity/platform';
import { z } from 'zod';
import type { ScreeningConfig } from '../config.js';
import { WatchlistScreening } from './watchlist-screening.service.js';

const NAME = z.string().max(200);
const requestSchema = z.object({
  person: z.object({
    family_name: NAME,
    given_names: z.array(NAME).max(20),
    date_of_birth: z.string().max(10).nullish(),
    nationality: z.string().max(3).nullish(),
  }),
  list: z.string().max(64).optional(),
  thresholds: z
    .object({ review: z.number().min(0.5).max(1).optional(), fail: z.number().min(0.5).max(1).nullable().optional() })
    .optional(),
});

/**
 * The live `watchlist` check (docs/watchlist.md, contract §21): the person read from the document, screened against
 * every loaded list; `review` with a hit at or above the review threshold, `fail` with one at or above the fail
 * threshold (when there is one), `pass` otherwise, and no outcome when the region has no list loaded. The thresholds
 * are the pinned template's `watchlist_thresholds` where it sets them, else `WATCHLIST_REVIEW_THRESHOLD` and
 * `WATCHLIST_FAIL_THRESHOLD`. With `list` (monitoring, docs/watchlist.md), against that list only, naming the version
 * screened.
 */
@Injectable()
export class WatchlistCheck {
  constructor(
    private readonly screening: WatchlistScreening,
    @Inject(CONFIG) private readonly cfg: ScreeningConfig,
  ) {}

  async run(body: WatchlistScreenRequest): Promise<WatchlistScreenReply> {
    const req = parseBody(requestSchema, body);
    const p = req.person;
    const name = [...p.given_names, p.family_name].join(' ').trim();
    const t = req.thresholds;
    const review = t?.review ?? this.cfg.WATCHLIST_REVIEW_THRESHOLD;
    const fail = t?.fail !== undefined ? t.fail : this.cfg.WATCHLIST_FAIL_THRESHOLD;
    const list = req.list ?? null;
    const { versions, ...r } = await this.screening.screen({ names: name ? [name] : [], dateOfBirth: p.date_of_birth ?? null, nationality: p.nationality ?? null }, review, list);
    const outcome = r.lists === 0 ? null : r.hits.length === 0 ? 'pass' : fail !== null && r.hits[0]!.score >= fail ? 'fail' : 'review';
    const reply: WatchlistScreenReply = { ...r, outcome, review_threshold: review, fail_threshold: fail };
    // monitoring: which version of the list was screened against, so that a version replaced meanwhile is seen
    if (list !== null) reply.list_version = versions[list] ?? null;
    return reply;
  }
}
