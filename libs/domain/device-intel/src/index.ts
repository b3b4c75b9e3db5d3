export * from './signals.js';
export * from './intel.js';
export * from './outcome.js';
export {
  emailParts,
  isDisposableDomain,
  disposableDomainCount,
  domainLooksGenerated,
  labelLooksGenerated,
  usernameGrammarInvalid,
  DGA_MIN_LENGTH,
  type EmailParts,
} from './email.js';
export * from './network.js';
export { timeZoneMismatch, countriesOfTimeZone } from './timezone.js';
