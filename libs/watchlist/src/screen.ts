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
 * What a shared year key (`y:`, a word and the year of birth) counts for in the ranking of candidates, against 1 for
 * any other key: about as much as all the other keys of a word together, so that a namesake of other years does not
 * outrank the person of the same year written in another script.
 */
export const YEAR_KEY_WEIGHT = 8;

/**
 * The persons of every current list that share the most keys with `$1` (text[]), a year key counting `YEAR_KEY_WEIGHT`, at most `$2`, optionally of the list
 * `$3` only, in one statement: one snapshot, so a list replaced meanwhile is read whole, old or new, never a mix or a
 * half. One row even without candidates (`entity_id` null), carrying the count of lists and their versions.
 */
export const CANDIDATES_SQL = `
  WITH current AS (SELECT id AS list, current_version AS version_id FROM screening.watchlists
                    WHERE current_version IS NOT NULL AND ($3::text IS NULL OR id = $3)),
       found AS (
         SELECT k.version_id, k.seq, sum(CASE WHEN k.key LIKE 'y:%' THEN ${YEAR_KEY_WEIGHT} ELSE 1 END)::int AS shared
           FROM current c JOIN screening.watchlist_keys k ON k.version_id = c.version_id AND k.key = ANY($1::text[])
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
