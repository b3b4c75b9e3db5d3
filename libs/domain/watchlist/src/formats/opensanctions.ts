import { parse } from 'csv-parse';
import { EntityBuilder, ListParseError, requireId, type EntityKind, type ListEntity } from '../entity.js';
import { textChunks, textLines, type ListInput } from '../input.js';
import { dayOf, later, type ListMeta, type ListReading } from './reading.js';

/** FollowTheMoney schemata that are parties (a name one screens against), by the kind Verity keeps. */
const SCHEMA_KINDS: Record<string, EntityKind> = {
  Person: 'person',
  Organization: 'organization',
  Company: 'organization',
  LegalEntity: 'organization',
  PublicBody: 'organization',
  Vessel: 'vessel',
  Airplane: 'other',
};

type Props = Record<string, unknown>;

function values(p: Props, key: string): string[] {
  const v = p[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * OpenSanctions' FollowTheMoney entities, one JSON object a line (`entities.ftm.json`): `id`, `schema`,
 * `properties` (`name`, `alias`, `previousName`, `firstName`/`lastName`, `birthDate`, `nationality`,
 * `citizenship`), `target` and `last_change`. Only parties are read (`Person`, organizations, vessels, aircraft);
 * the other schemata of the file (sanctions, addresses, identifications, relations) describe them and are passed
 * over, as are parties marked `"target": false`. The publication date is the newest `last_change`.
 */
export function readOpenSanctionsFtm(input: ListInput): ListReading {
  const meta: ListMeta = { published: null };
  async function* entities(): AsyncGenerator<ListEntity> {
    const lines = textLines(input, (line) => new ListParseError('a line longer than 16 MiB', { line }));
    for await (const { line, text } of lines) {
      if (text.trim() === '') continue;
      let obj: unknown;
      try {
        obj = JSON.parse(text);
      } catch (e) {
        throw new ListParseError(`not a JSON object: ${(e as Error).message}`, { line });
      }
      if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new ListParseError('not a JSON object', { line });
      const o = obj as Record<string, unknown>;
      if (typeof o.schema !== 'string' || o.schema === '') throw new ListParseError('an entity without "schema": this is not FollowTheMoney JSON', { line });
      const id = requireId(typeof o.id === 'string' ? o.id : '', { line }, 'an entity');
      const props = typeof o.properties === 'object' && o.properties !== null && !Array.isArray(o.properties) ? (o.properties as Props) : null;
      if (!props) throw new ListParseError('an entity without "properties": this is not FollowTheMoney JSON', { line });
      if (typeof o.last_change === 'string') meta.published = later(meta.published, dayOf(o.last_change));
      const kind = SCHEMA_KINDS[o.schema];
      if (!kind || o.target === false) continue;
      const e = new EntityBuilder(id, kind);
      for (const n of [...values(props, 'name'), ...values(props, 'alias'), ...values(props, 'previousName')]) e.name(n);
      const first = values(props, 'firstName');
      const last = values(props, 'lastName');
      if (first.length > 0 && last.length > 0) e.name(first[0], ...values(props, 'middleName').slice(0, 1), last[0]);
      for (const d of values(props, 'birthDate')) e.dateOfBirth(d);
      for (const c of [...values(props, 'nationality'), ...values(props, 'citizenship')]) e.nationality(c);
      yield e.build();
    }
  }
  return { entities: entities(), meta };
}

const CSV_REQUIRED = ['id', 'schema', 'name'] as const;

/** A multi-valued cell of `targets.simple.csv`: values joined by `;`. */
function split(cell: string | undefined): string[] {
  return (cell ?? '')
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * OpenSanctions' `targets.simple.csv`: a header row, then one party a row: `id`, `schema`, `name`, `aliases`,
 * `birth_date`, `countries` (each multi-valued, `;`-separated), … `last_change`. `countries` is read as the
 * nationalities (the simplified export folds nationality and citizenship into it). The publication date is the
 * newest `last_change`.
 */
export function readOpenSanctionsCsv(input: ListInput): ListReading {
  const meta: ListMeta = { published: null };
  async function* entities(): AsyncGenerator<ListEntity> {
    const parser = parse({ columns: true, bom: true, skip_empty_lines: true, info: true, relax_quotes: false, max_record_size: 16 * 1024 * 1024 });
    // the file is written into the parser as it is read; the parser's records are read as they come
    const feeding = (async () => {
      try {
        for await (const text of textChunks(input)) {
          if (!parser.write(text)) await new Promise((r) => parser.once('drain', r));
        }
        parser.end();
      } catch (e) {
        parser.destroy(e as Error);
      }
    })();
    let checkedHeader = false;
    try {
      for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
        const line = info.lines;
        if (!checkedHeader) {
          for (const col of CSV_REQUIRED) {
            if (!Object.hasOwn(record, col)) throw new ListParseError(`the header has no "${col}" column: this is not targets.simple.csv`, { line: 1 });
          }
          checkedHeader = true;
        }
        const id = requireId(record.id, { line }, 'a row');
        if (record.last_change) meta.published = later(meta.published, dayOf(record.last_change));
        const kind = SCHEMA_KINDS[record.schema ?? ''];
        if (!kind) continue;
        const e = new EntityBuilder(id, kind).name(record.name);
        for (const a of split(record.aliases)) e.name(a);
        for (const d of split(record.birth_date)) e.dateOfBirth(d);
        for (const c of split(record.countries)) e.nationality(c);
        yield e.build();
      }
    } catch (e) {
      if (e instanceof ListParseError) throw e;
      const err = e as { message?: string; lines?: number; code?: string };
      throw new ListParseError(`not well-formed CSV: ${(err.message ?? String(e)).replace(/^Invalid [^:]*: /, '')}`, err.lines !== undefined ? { line: err.lines } : {});
    } finally {
      parser.destroy();
      await feeding;
    }
  }
  return { entities: entities(), meta };
}
