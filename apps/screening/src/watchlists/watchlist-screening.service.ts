import { Injectable } from '@nestjs/common';
import type { WatchlistScreenResult } from '@verity/contracts';
import { screenPerson, type ScreenedPerson } from '@verity/watchlist';
import { WatchlistsRepository } from './watchlists.repository.js';

/**
 * Screening one person against every loaded list (docs/watchlist.md): `screenPerson` of `@verity/watchlist` over the
 * key index of this region's current versions. A hit is a candidate scoring at least `minScore`. With `list`, only
 * that list is screened against (monitoring); `versions` names the current version of each list screened.
 */
@Injectable()
export class WatchlistScreening {
  constructor(private readonly repo: WatchlistsRepository) {}

  screen(person: ScreenedPerson, minScore: number, list: string | null = null): Promise<WatchlistScreenResult & { versions: Record<string, number> }> {
    return screenPerson(person, minScore, (keys, limit, only) => this.repo.candidates(keys, limit, only), list);
  }
}
