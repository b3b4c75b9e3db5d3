export {
  ageOn,
  compareDates,
  compareNames,
  fold,
  isCalendarDate,
  MRZ_TRUNCATION_LENGTH,
  nameTokens,
  normalize,
  sameWord,
  transliterate,
  type NameComparison,
  type PersonName,
} from './names.js';
