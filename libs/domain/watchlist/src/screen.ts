import { birthYears, nameKeys, prepareName, scoreParty, type MatchFeatures, type ScreenedPerson } from './match.js';

/** Candidates scored per screening at most: the persons sharing the most index keys with the person screened. */
export const CANDIDATE_LIMIT = 300;
/** Hits reported per screening at most, best first. */
export const MAX_HITS = 10;

/** A listed person of a current version, as the key index finds it. */
export interface Candidate {
  list: string;
  entity_id: string;
  names: string[];
  dates_of_birth: string[];
  nationalities: string[];
}

/** What the key index answers for a screening: lists screened against, their current versions, the candidates. */
export interface CandidateAnswer {
  lists: number;
  versions: Record<string, number>;
  candidates: Candidate[];
}

/** Where candidates come from: the screening service's database (`CANDIDATES_SQL`). */
export type CandidateSource = (keys: readonly string[], limit: number, list: string | null) => Promise<CandidateAnswer>;

export interface ScreeningHit {
  list: string;
  entity_id: string;
  matched_name: string;
  score: number;
  features: MatchFeatures;
}

export interface Screening {
  lists: number;
  best_score: number;
  hits: ScreeningHit[];
  versions: Record<string, number>;
}

/**
 * Index rows a key may have and still be read for a screening (`CANDIDATES_SQL`): a key shared by more persons (the
 * phonetic code of `MUHAMMAD`, the initials of a common family name) tells the person screened from few of them and
 * costs a scan of all; the rarer keys of the same name (its year of birth, a rarer word) find the person among them.
 */
export const KEY_ROWS_CAP = 500;
/** Keys read whatever their rows when none is rare enough: the rarest of a list's keys that the person has. */
export const FALLBACK_KEYS = 2;

/**
 * What a shared key counts for in the ranking of candidates, by its rows `n` (counted up to `KEY_ROWS_CAP + 1`): the
 * rarer, the more (`√(KEY_ROWS_CAP / n)`: about 22 for a key of one person, 1 for one at the cap), so that the person
 * sharing a rare word or the year of birth outranks the namesakes sharing many common keys (a year of birth, about
 * fifty times as rare as its word, counts about seven times as much).
 */
export function keyWeight(n: number): number {
  return Math.sqrt(KEY_ROWS_CAP / Math.max(1, n));
}

/**
 * The keys a screening reads of one list, of those the person has (`rows`: each key's rows, counted up to
 * `KEY_ROWS_CAP + 1`), with their weights: those within the cap, else the `FALLBACK_KEYS` rarest. As `CANDIDATES_SQL`
 * chooses them (for tests and models of it).
 */
export function keysRead(rows: ReadonlyArray<{ key: string; n: number }>): Array<{ key: string; weight: number }> {
  const present = rows.filter((r) => r.n > 0).sort((a, b) => a.n - b.n || (a.key < b.key ? -1 : 1));
  return present.filter((r, i) => r.n <= KEY_ROWS_CAP || i < FALLBACK_KEYS).map((r) => ({ key: r.key, weight: keyWeight(r.n) }));
}

/**
 * The persons of every current list that share the most with `$1` (text[], the keys of the person screened), at most
 * `$2`, optionally of the list `$3` only, in one statement: one snapshot, so a list replaced meanwhile is read whole,
 * old or new, never a mix or a half. Each key's rows are counted first, up to `KEY_ROWS_CAP + 1` (an index-only
 * range); the keys within the cap are read, or where a list has none such the `FALLBACK_KEYS` rarest, and a
 * candidate's rank is the sum of its shared keys' `keyWeight`. One row even without candidates (`entity_id` null),
 * carrying the count of lists and their versions.
 */
export const CANDIDATES_SQL = `
  WITH current AS (SELECT id AS list, current_version AS version_id FROM screening.watchlists
                    WHERE current_version IS NOT NULL AND ($3::text IS NULL OR id = $3)),
       counted AS MATERIALIZED (
         SELECT c.version_id, w.key,
                (SELECT count(*) FROM (SELECT 1 FROM screening.watchlist_keys k
                                        WHERE k.version_id = c.version_id AND k.key = w.key LIMIT ${KEY_ROWS_CAP + 1}) x)::int AS n
           FROM current c CROSS JOIN unnest($1::text[]) AS w(key)),
       used AS (
         SELECT version_id, key, sqrt(${KEY_ROWS_CAP}::float8 / n) AS weight
           FROM (SELECT *, row_number() OVER (PARTITION BY version_id ORDER BY n, key) AS rarest FROM counted WHERE n > 0) r
          WHERE n <= ${KEY_ROWS_CAP} OR rarest <= ${FALLBACK_KEYS}),
       found AS (
         SELECT k.version_id, k.seq, sum(u.weight) AS shared
           FROM used u JOIN screening.watchlist_keys k ON k.version_id = u.version_id AND k.key = u.key
          GROUP BY k.version_id, k.seq
          ORDER BY shared DESC, k.version_id, k.seq
          LIMIT $2)
  SELECT (SELECT count(*)::int FROM current) AS lists, (SELECT coalesce(jsonb_object_agg(list, version_id::text), '{}') FROM current) AS versions,
         c.list, e.entity_id, e.names, e.dates_of_birth, e.nationalities, f.shared
    FROM (SELECT 1) one
    LEFT JOIN found f ON true
    LEFT JOIN current c ON c.version_id = f.version_id
    LEFT JOIN screening.watchlist_entities e ON e.version_id = f.version_id AND e.seq = f.seq`;

/** The rows of `CANDIDATES_SQL` as a `CandidateAnswer`. */
export function candidateAnswer(rows: ReadonlyArray<Candidate & { lists: number; versions: Record<string, string> | null }>): CandidateAnswer {
  const lists = rows[0]?.lists ?? 0;
  const versions = Object.fromEntries(Object.entries(rows[0]?.versions ?? {}).map(([l, v]) => [l, Number(v)]));
  const candidates = rows
    .filter((r) => r.entity_id !== null)
    .map((r) => ({ list: r.list, entity_id: r.entity_id, names: r.names, dates_of_birth: r.dates_of_birth, nationalities: r.nationalities }));
  return { lists, versions, candidates };
}

/**
 * Screens one person (docs/watchlist.md): candidates come from the key index of the current versions (never a scan
 * of the lists), and each is scored by `scoreParty`. A hit is a candidate scoring at least `minScore`; at most
 * `MAX_HITS`, best first. `best_score` is the best of any candidate, hit or not.
 */
export async function screenPerson(person: ScreenedPerson, minScore: number, source: CandidateSource, list: string | null = null): Promise<Screening> {
  const prepared = person.names.map(prepareName).filter((p) => p.tokens.length > 0);
  const keys = [...new Set(prepared.flatMap((p) => nameKeys(p, true, birthYears([person.dateOfBirth]))))];
  const { lists, candidates, versions } = await source(keys, keys.length === 0 ? 0 : CANDIDATE_LIMIT, list);
  let best = 0;
  const hits: ScreeningHit[] = [];
  for (const c of candidates) {
    const m = scoreParty(person, c, { person: prepared });
    if (!m) continue;
    best = Math.max(best, m.score);
    if (m.score >= minScore) hits.push({ list: c.list, entity_id: c.entity_id, matched_name: m.matched_name, score: m.score, features: m.features });
  }
  hits.sort((a, b) => b.score - a.score || a.list.localeCompare(b.list) || a.entity_id.localeCompare(b.entity_id));
  return { lists, best_score: best, hits: hits.slice(0, MAX_HITS), versions };
}
