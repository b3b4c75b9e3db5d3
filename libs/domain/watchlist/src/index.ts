export {
  countryCode,
  ENTITY_KINDS,
  ENTITY_LIMITS,
  EntityBuilder,
  isListFormat,
  LIST_FORMATS,
  ListParseError,
  parseListDate,
  partialDate,
  type EntityKind,
  type ListEntity,
  type ListFormat,
} from './entity.js';
export type { ListMeta, ListReading } from './formats/reading.js';
export type { ListInput } from './input.js';
export { readList } from './read.js';
export { loadList, type LoadedEntity, type LoadOptions, type LoadOutcome, type LoadSink } from './load.js';
export {
  birthYears,
  compareDates,
  compareNames,
  compareNationality,
  DATE_ADJUSTMENT,
  nameKeys,
  partyKeys,
  NATIONALITY_ADJUSTMENT,
  prepareName,
  scoreParty,
  tokenSimilarity,
  type DateAgreement,
  type ListedParty,
  type MatchFeatures,
  type NameComparison,
  type NameToken,
  type NationalityAgreement,
  type PartyMatch,
  type PreparedName,
  type ScreenedPerson,
  type TokenMatch,
  type TokenPair,
} from './match.js';
export {
  CANDIDATE_LIMIT,
  candidateAnswer,
  CANDIDATES_SQL,
  MAX_HITS,
  screenPerson,
  type Candidate,
  type CandidateAnswer,
  type CandidateSource,
  type Screening,
  type ScreeningHit,
} from './screen.js';
