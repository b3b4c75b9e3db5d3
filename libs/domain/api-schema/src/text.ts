/**
 * Text the API stores (every string of a request body): Postgres `text` and `jsonb` refuse U+0000, and a UTF-16
 * surrogate without its partner is not Unicode (`jsonb` refuses its escape; `text` would silently store U+FFFD
 * instead). The one predicate of the platform; libs/platform/service re-exports it. Own entry point
 * (`@verity/api-schema/text`) so that importing it loads no schema.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(s: string): boolean {
  return !UNSTORABLE.test(s);
}

/** What an issue says about an unstorable string; the value itself is never repeated. */
export const UNSTORABLE_TEXT_MESSAGE = 'must be text without NUL characters or unpaired surrogates';
