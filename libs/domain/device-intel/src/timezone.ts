/**
 * `fraud.geoTimezoneMismatch`: the browser's time zone against the time zones of the address country, from the
 * offline tables of `countries-and-timezones` (MIT; IANA data compiled into the package, no network).
 */
import ct from 'countries-and-timezones';

/** The countries an IANA time zone is used in (its alias target's countries for an alias); empty when none. */
export function countriesOfTimeZone(name: string): string[] {
  const tz = ct.getTimezone(name);
  if (tz === null) return [];
  if (tz.countries.length > 0) return [...tz.countries];
  if (tz.aliasOf) {
    const target = ct.getTimezone(tz.aliasOf);
    if (target !== null) return [...target.countries];
  }
  return [];
}

/**
 * True when the time zone is not used anywhere in the country; undefined when the comparison cannot be made:
 * a missing value, a country code the tables do not know (`XK`), or a zone tied to no country (`UTC`,
 * `Etc/GMT+3`).
 */
export function timeZoneMismatch(timeZone: string | undefined, country: string | undefined): boolean | undefined {
  if (timeZone === undefined || country === undefined) return undefined;
  if (ct.getCountry(country) === null) return undefined;
  const countries = countriesOfTimeZone(timeZone);
  if (countries.length === 0) return undefined;
  if (countries.includes(country)) return false;
  // The country's own list, deprecated names included, catches a zone the reverse table files elsewhere.
  const zones = ct.getTimezonesForCountry(country, { deprecated: true }) ?? [];
  return !zones.some((z) => z.name === timeZone || z.aliasOf === timeZone);
}
