export {
  validateSessionMetadata,
  RESERVED_METADATA_KEYS,
  METADATA_KEYS,
  AMOUNT_MIN,
  AMOUNT_MAX,
  METADATA_MAX_BYTES,
  jsonBytes,
  metadataSizeIssue,
  type MetadataIssue,
  type MetadataIssueCode,
  type MetadataValidation,
  type MetadataKey,
} from './validate.js';
export {
  DOCUMENT_VARIABLES,
  missingSigningKeys,
  esignMissingMessage,
  renderDocumentVariable,
  type DocumentVariable,
} from './document.js';
export { DATETIME_RE, isCalendarDay, parseOffsetDatetime } from './datetime.js';
export { LOCATION_CHAR_RULES, LOCATION_MAX_CHARACTERS } from './location.js';
