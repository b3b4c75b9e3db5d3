import { Inject, Injectable } from '@nestjs/common';
import type { WatchlistEntityWire, WatchlistStatus } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import { Sql, unnestColumns } from '@verity/platform';
import { candidateAnswer, CANDIDATES_SQL, type CandidateAnswer } from '@verity/watchlist';

/** Rows of one version's entities deleted per statement when a retired or abandoned version is cleared. */
export const PURGE_CHUNK = 5000;

const ENTITIES = unnestColumns({ seq: 'int', entity_id: 'text', names: 'jsonb', dates_of_birth: 'jsonb', nationalities: 'jsonb' }, { from: 2, as: 'r' });

const KEYS = unnestColumns({ key: 'text', seq: 'int' }, { from: 2, as: 'k' });

const jsonText = (col: string) => `ARRAY(SELECT jsonb_array_elements_text(r.${col}))`;

/** A listed person to store, with the index keys of its names and years of birth (`partyKeys` of @verity/watchlist). */
export type KeyedEntity = WatchlistEntityWire & { keys: readonly string[] };

/** A candidate of a screening: a current version's person that shares keys with the person screened. */
export interface CandidateRow {
  list: string;
  entity_id: string;
  names: string[];
  dates_of_birth: string[];
  nationalities: string[];
  shared: number;
}

interface StatusRow {
  list: string;
  format: string | null;
  published_on: string | null;
  entities: number | null;
  names: number | null;
  skipped: Record<string, number> | null;
  source: string | null;
  loaded_at: Date | null;
  version: string | null;
  loading_version: string | null;
  loading_started_at: Date | null;
  loading_entities: number | null;
}

function statusOf(r: StatusRow): WatchlistStatus {
  return {
    object: 'watchlist',
    list: r.list,
    format: r.format,
    published_on: r.published_on,
    entities: r.entities ?? 0,
    names: r.names ?? 0,
    skipped: r.skipped ?? {},
    source: r.source,
    loaded_at: r.loaded_at?.toISOString() ?? null,
    version: r.version === null ? null : Number(r.version),
    loading:
      r.loading_version === null ? null : { version: Number(r.loading_version), started_at: r.loading_started_at!.toISOString(), entities: r.loading_entities ?? 0 },
  };
}

const STATUS = `
  SELECT w.id AS list, c.format, to_char(c.published_on, 'YYYY-MM-DD') AS published_on, c.entities, c.names, c.skipped, c.source,
         c.committed_at AS loaded_at, c.id AS version,
         l.id AS loading_version, l.started_at AS loading_started_at,
         (SELECT count(*)::int FROM screening.watchlist_entities e WHERE l.id IS NOT NULL AND e.version_id = l.id) AS loading_entities
    FROM screening.watchlists w
    LEFT JOIN screening.watchlist_versions c ON c.id = w.current_version
    LEFT JOIN screening.watchlist_versions l ON l.list_id = w.id AND l.state = 'loading'`;

function closed(): DomainError {
  return new DomainError('invalid_state_transition', {
    message: 'This load of the list is no longer open: it was committed, abandoned, or replaced by a later load of the same list.',
    param: 'version',
  });
}

/**
 * The watchlists' storage (docs/watchlist.md, "How a load works"). A load writes a version of its own, which
 * screening never reads until `commit` makes it the list's current one in one transaction; batches are idempotent
 * (an entity is keyed by its version and ordinal), so a batch sent again after a timeout is stored once.
 */
@Injectable()
export class WatchlistsRepository {
  constructor(@Inject(Sql) private readonly db: Sql) {}

  /** A new version of the list, `loading`; a load of it still under way is abandoned (the later load wins). */
  async begin(list: string, format: string, source: string, beforeCommit: () => void): Promise<number> {
    return this.db.tx(async (q) => {
      await q.rows(`INSERT INTO screening.watchlists (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`, [list]);
      await q.rows(`SELECT 1 FROM screening.watchlists WHERE id = $1 FOR UPDATE`, [list]);
      await q.rows(`UPDATE screening.watchlist_versions SET state = 'abandoned' WHERE list_id = $1 AND state = 'loading'`, [list]);
      const [v] = await q.rows<{ id: string }>(
        `INSERT INTO screening.watchlist_versions (list_id, format, source, state) VALUES ($1, $2, $3, 'loading') RETURNING id`,
        [list, format, source],
      );
      beforeCommit();
      return Number(v!.id);
    });
  }

  /** Stores a batch of a load still open; what was stored before (a batch sent twice) is not stored again. */
  async insertBatch(list: string, version: number, firstSeq: number, entities: readonly KeyedEntity[]): Promise<number> {
    return this.db.tx(async (q) => {
      const open = await q.rows(
        `UPDATE screening.watchlist_versions SET touched_at = now() WHERE id = $1 AND list_id = $2 AND state = 'loading' RETURNING id`,
        [version, list],
      );
      if (open.length === 0) throw closed();
      const rows = entities.map((e, i) => ({
        seq: firstSeq + i,
        entity_id: e.entity_id,
        names: JSON.stringify(e.names),
        dates_of_birth: JSON.stringify(e.dates_of_birth),
        nationalities: JSON.stringify(e.nationalities),
      }));
      const stored = await q.rows(
        `INSERT INTO screening.watchlist_entities (version_id, seq, entity_id, names, dates_of_birth, nationalities)
         SELECT $1, r.seq, r.entity_id, ${jsonText('names')}, ${jsonText('dates_of_birth')}, ${jsonText('nationalities')} FROM ${ENTITIES.sql}
         ON CONFLICT (version_id, seq) DO NOTHING RETURNING 1`,
        [version, ...ENTITIES.params(rows)],
      );
      const keys = entities.flatMap((e, i) => e.keys.map((key) => ({ key, seq: firstSeq + i })));
      if (keys.length > 0) {
        await q.rows(
          `INSERT INTO screening.watchlist_keys (version_id, key, seq) SELECT $1, k.key, k.seq FROM ${KEYS.sql} ON CONFLICT DO NOTHING`,
          [version, ...KEYS.params(keys)],
        );
      }
      return stored.length;
    });
  }

  /**
   * Makes the load the list's current version, in one transaction: refused unless it is still open and holds
   * exactly `expected` entities. The version it replaces is retired (its rows are cleared afterwards).
   */
  async commit(
    list: string,
    version: number,
    expected: number,
    meta: { published_on: string | null; skipped: Record<string, number> },
    beforeCommit: () => void,
  ): Promise<{ status: WatchlistStatus; replaced: number }> {
    return this.db.tx(async (q) => {
      const [w] = await q.rows<{ current_version: string | null }>(`SELECT current_version FROM screening.watchlists WHERE id = $1 FOR UPDATE`, [list]);
      if (!w) throw closed();
      const [v] = await q.rows<{ state: string }>(`SELECT state FROM screening.watchlist_versions WHERE id = $1 AND list_id = $2 FOR UPDATE`, [version, list]);
      if (!v || v.state !== 'loading') throw closed();
      const [count] = await q.rows<{ n: number; names: number }>(
        `SELECT count(*)::int AS n, coalesce(sum(cardinality(names)), 0)::int AS names FROM screening.watchlist_entities WHERE version_id = $1`,
        [version],
      );
      if (count!.n !== expected) {
        throw DomainError.validation(
          [{ code: 'custom', message: `${expected} entities were sent but ${count!.n} are stored: the load is incomplete; load the file again`, path: ['entities'] }],
        );
      }
      let replaced = 0;
      if (w.current_version !== null) {
        const [old] = await q.rows<{ entities: number }>(
          // a version replaced before sessions had it is not monitored: the new one is
          `UPDATE screening.watchlist_versions SET state = 'retired', monitor_notified_at = COALESCE(monitor_notified_at, now()) WHERE id = $1 RETURNING entities`,
          [w.current_version],
        );
        replaced = old?.entities ?? 0;
      }
      await q.rows(
        `UPDATE screening.watchlist_versions
            SET state = 'current', committed_at = now(), entities = $2, names = $3, published_on = $4::date, skipped = $5::jsonb
          WHERE id = $1`,
        [version, count!.n, count!.names, meta.published_on, JSON.stringify(meta.skipped)],
      );
      await q.rows(`UPDATE screening.watchlists SET current_version = $2 WHERE id = $1`, [list, version]);
      const [row] = await q.rows<StatusRow>(`${STATUS} WHERE w.id = $1`, [list]);
      beforeCommit();
      return { status: statusOf(row!), replaced };
    });
  }

  /** Abandons an open load: screening never saw it, and its rows are cleared afterwards. False when it was not open. */
  async abort(list: string, version: number): Promise<boolean> {
    const rows = await this.db.rows(
      `UPDATE screening.watchlist_versions SET state = 'abandoned' WHERE id = $1 AND list_id = $2 AND state = 'loading' RETURNING id`,
      [version, list],
    );
    return rows.length > 0;
  }

  /** Every list with its current version and any load under way, by name. */
  async status(): Promise<WatchlistStatus[]> {
    return (await this.db.rows<StatusRow>(`${STATUS} ORDER BY w.id`)).map(statusOf);
  }

  /** Abandons the loads no batch has touched for `idleMs` (a loader that died): their rows are cleared like the others. */
  async abandonIdle(idleMs: number): Promise<number> {
    const rows = await this.db.rows(
      `UPDATE screening.watchlist_versions SET state = 'abandoned' WHERE state = 'loading' AND touched_at < now() - $1 * interval '1 millisecond' RETURNING id`,
      [idleMs],
    );
    return rows.length;
  }

  /** A retired or abandoned version whose rows are not cleared yet, if any. */
  async nextToPurge(): Promise<number | null> {
    const [v] = await this.db.rows<{ id: string }>(
      `SELECT id FROM screening.watchlist_versions WHERE purged_at IS NULL AND state IN ('retired', 'abandoned') ORDER BY id LIMIT 1`,
    );
    return v ? Number(v.id) : null;
  }

  /** Deletes up to `PURGE_CHUNK` rows of a version, its keys first; once none is left, marks it cleared. The rows deleted. */
  async purgeChunk(version: number): Promise<number> {
    const keys = await this.db.rows(
      `DELETE FROM screening.watchlist_keys WHERE (version_id, key, seq) IN
         (SELECT version_id, key, seq FROM screening.watchlist_keys WHERE version_id = $1 LIMIT $2) RETURNING 1`,
      [version, PURGE_CHUNK * 4],
    );
    if (keys.length > 0) return keys.length;
    const gone = await this.db.rows(
      `DELETE FROM screening.watchlist_entities WHERE version_id = $1
          AND seq IN (SELECT seq FROM screening.watchlist_entities WHERE version_id = $1 ORDER BY seq LIMIT $2) RETURNING 1`,
      [version, PURGE_CHUNK],
    );
    if (gone.length === 0) await this.db.rows(`UPDATE screening.watchlist_versions SET purged_at = now() WHERE id = $1`, [version]);
    return gone.length;
  }

  /** The candidates of a screening (`CANDIDATES_SQL` of @verity/watchlist): one statement, one snapshot of the lists. */
  async candidates(keys: readonly string[], limit: number, list: string | null = null): Promise<CandidateAnswer> {
    return candidateAnswer(await this.db.rows<CandidateRow & { lists: number; versions: Record<string, string> }>(CANDIDATES_SQL, [keys, limit, list]));
  }

  /** Current versions not yet handed to sessions for monitoring (docs/watchlist.md, "Monitoring"), oldest first. */
  async toMonitor(limit: number): Promise<Array<{ list: string; version: number; committed_at: Date }>> {
    const rows = await this.db.rows<{ list: string; version: string; committed_at: Date }>(
      `SELECT list_id AS list, id AS version, committed_at FROM screening.watchlist_versions
        WHERE monitor_notified_at IS NULL AND state = 'current' ORDER BY id LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({ list: r.list, version: Number(r.version), committed_at: r.committed_at }));
  }

  async monitorNotified(version: number): Promise<void> {
    await this.db.rows(`UPDATE screening.watchlist_versions SET monitor_notified_at = now() WHERE id = $1 AND monitor_notified_at IS NULL`, [version]);
  }
}
