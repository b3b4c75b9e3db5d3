import { ID_PREFIXES, MODES, REGIONS, type IdKind } from '@verity/keys';
import { z } from 'zod';

/** An id of one kind as the API answers it: its type prefix, then opaque characters (docs/authentication.md). */
export function id(kind: IdKind, what: string) {
  return z
    .string()
    .regex(new RegExp(`^${ID_PREFIXES[kind]}_[A-Za-z0-9]+$`))
    .meta({ description: `${what} id (\`${ID_PREFIXES[kind]}_…\`, opaque).` });
}

/** An instant as the API writes it: ISO 8601 in UTC with milliseconds (`Date.prototype.toISOString`). */
export const timestamp = z.iso.datetime().meta({ description: 'ISO 8601 instant, UTC.' });

export const mode = z.enum(MODES).meta({ description: 'The mode of the key that created the resource: `test` or `live`.' });
export const region = z.enum(REGIONS);

/** The answer of every read and write of one object: `{ "data": <object> }`. */
export function data<T extends z.ZodType>(item: T) {
  return z.object({ data: item });
}

/** A page of a list (docs/authentication.md): newest first; `next_cursor` is null on the last page. */
export function page<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` to read the next page; null on the last page.' }),
  });
}
