import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '@verity/api-schema/text';
import { DomainError, type Issue } from '@verity/errors';

// Text Postgres can store: the predicate lives with the API's schemas (libs/domain/api-schema), which describe it.
export { isStorableText, UNSTORABLE_TEXT_MESSAGE };

/**
 * In the JSON text of a message (as JSON.stringify writes it), NUL and unpaired surrogates can only appear as
 * `\u0000` and `\udxxx` escapes: a cheap test that tells when a message needs the walk below. It can answer yes
 * for a message that is fine (an escaped backslash before "u0000"), never no for one that is not.
 */
const SUSPECT_JSON = /\\u0000|\\u[dD][89abcdefABCDEF]/;

export function mayHoldUnstorableText(json: string): boolean {
  return SUSPECT_JSON.test(json);
}

/** Where the first unstorable string of a JSON value is: its path, and whether it is a field name there. */
export interface UnstorableAt {
  path: (string | number)[];
  /** The field name is the offending string: `path` ends at the object holding it (the name is not repeated). */
  inName: boolean;
}

interface Visit {
  v: unknown;
  parent: Visit | null;
  key: string | number;
}

function pathOf(n: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let x: Visit | null = n; x?.parent; x = x.parent) path.push(x.key);
  return path.reverse();
}

/**
 * Walks a JSON value and finds the first string or field name that is not storable. Iterative, and each node
 * links to its parent instead of carrying its path: depth costs neither stack nor time.
 */
export function findUnstorableText(value: unknown): UnstorableAt | null {
  const stack: Visit[] = [{ v: value, parent: null, key: '' }];
  while (stack.length > 0) {
    const n = stack.pop()!;
    const v = n.v;
    if (typeof v === 'string') {
      if (!isStorableText(v)) return { path: pathOf(n), inName: false };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], parent: n, key: i });
    } else if (typeof v === 'object' && v !== null) {
      const entries = Object.entries(v);
      for (const [k] of entries) if (!isStorableText(k)) return { path: pathOf(n), inName: true };
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ v: entries[i]![1], parent: n, key: entries[i]![0] });
    }
  }
  return null;
}

/**
 * The refusal of a request to a service (a NATS payload) that carries unstorable text. Payloads follow one
 * convention (libs/domain/contracts): the payload of a list (`<service>.<resource>.list.v1`) is the query string;
 * otherwise `body` is the request body, `id` the id of the route's path, and every other top-level field a
 * value the gateway derived. The error names the parameter as the client sent it: a body field by its path
 * inside the body, a query parameter by its name. A path id that is not storable text is not an id this API
 * issued: 404 `resource_not_found`, like every malformed id. Nothing of the value is repeated.
 */
export function unstorableInputError(payload: unknown, opts: { query?: boolean } = {}): DomainError | null {
  const at = findUnstorableText(payload);
  if (!at) return null;
  let path = at.path.map((s) => (typeof s === 'string' ? s.slice(0, 100) : s));
  if (!opts.query && path[0] === 'id' && path.length === 1 && !at.inName) return DomainError.notFound();
  if (path[0] === 'body') path = path.slice(1);
  const where = path.length > 0 ? path.join('.') : null;
  const message = at.inName
    ? `${where ? `a field name in ${where}` : 'a field or parameter name'} ${UNSTORABLE_TEXT_MESSAGE}`
    : `${where ?? 'the body'} ${UNSTORABLE_TEXT_MESSAGE}`;
  const issue: Issue = { code: 'invalid_format', message, path };
  return DomainError.validation([issue]);
}
