import { Injectable } from '@nestjs/common';
import type { WatchlistHit, WatchlistScreenResult } from '@verity/contracts';
import { nameKeys, prepareName, scoreParty, type ScreenedPerson } from '@verity/watchlist';
import { WatchlistsRepository } from './watchlists.repository.js';

/** Candidates scored per screening at most: the persons sharing the most index keys with the person screened. */
export const CANDIDATE_LIMIT = 100;
/** Hits reported per screening at most, best first. */
export const MAX_HITS = 10;

/**
 * Screening one person against every loaded list (docs/watchlist.md): candidates come from the key index of the
 * current versions (never a scan of the lists), and each is scored by the matcher of `@verity/watchlist`. A hit is
 * a candidate scoring at least `minScore`. With `list`, only that list is screened against (monitoring); `versions`
 * names the current version of each list screened.
 */
@Injectable()
export class WatchlistScreening {
  constructor(private readonly repo: WatchlistsRepository) {}

  async screen(person: ScreenedPerson, minScore: number, list: string | null = null): Promise<WatchlistScreenResult & { versions: Record<string, number> }> {
    const prepared = person.names.map(prepareName).filter((p) => p.tokens.length > 0);
    const keys = [...new Set(prepared.flatMap(nameKeys))];
    const { lists, candidates, versions } = await this.repo.candidates(keys, keys.length === 0 ? 0 : CANDIDATE_LIMIT, list);
    let best = 0;
    const hits: WatchlistHit[] = [];
    for (const c of candidates) {
      const m = scoreParty(person, c, { person: prepared });
      if (!m) continue;
      best = Math.max(best, m.score);
      if (m.score >= minScore) hits.push({ list: c.list, entity_id: c.entity_id, matched_name: m.matched_name, score: m.score, features: m.features });
    }
    hits.sort((a, b) => b.score - a.score || a.list.localeCompare(b.list) || a.entity_id.localeCompare(b.entity_id));
    return { lists, best_score: best, hits: hits.slice(0, MAX_HITS), versions };
  }
}
