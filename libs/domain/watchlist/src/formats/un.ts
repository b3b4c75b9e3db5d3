import { EntityBuilder, requireId, type ListEntity } from '../entity.js';
import type { ListInput } from '../input.js';
import { children, textOf, xmlRecords, type XmlNode } from '../xml.js';
import { dayOf, type ListMeta, type ListReading } from './reading.js';

/**
 * The UN Security Council consolidated list in XML: `<CONSOLIDATED_LIST dateGenerated="…">` with `<INDIVIDUALS>`
 * of `<INDIVIDUAL>` and `<ENTITIES>` of `<ENTITY>`: `DATAID`, `FIRST_NAME` to `FOURTH_NAME`,
 * `NAME_ORIGINAL_SCRIPT`, `<INDIVIDUAL_ALIAS>`/`<ENTITY_ALIAS>` with `ALIAS_NAME`, `<NATIONALITY>` of `VALUE`s and
 * `<INDIVIDUAL_DATE_OF_BIRTH>` (`TYPE_OF_DATE` EXACT, APPROXIMATELY or BETWEEN, with `DATE`, `YEAR` or
 * `FROM_YEAR`/`TO_YEAR`).
 */
export function readUnSc(input: ListInput): ListReading {
  const meta: ListMeta = { published: null };
  async function* entities(): AsyncGenerator<ListEntity> {
    const records = xmlRecords(input, {
      format: 'a UN Security Council consolidated XML file',
      roots: ['CONSOLIDATED_LIST'],
      isRecord: (p, n) => (p === 'INDIVIDUALS' && n === 'INDIVIDUAL') || (p === 'ENTITIES' && n === 'ENTITY'),
      onRoot: (attrs) => (meta.published = dayOf(attrs.dateGenerated)),
    });
    for await (const r of records) {
      const person = r.name === 'INDIVIDUAL';
      const id = requireId(textOf(r, 'DATAID'), { line: r.line, element: r.name }, `an <${r.name}>`);
      const e = new EntityBuilder(id, person ? 'person' : 'organization');
      e.name(textOf(r, 'FIRST_NAME'), textOf(r, 'SECOND_NAME'), textOf(r, 'THIRD_NAME'), textOf(r, 'FOURTH_NAME'));
      e.name(textOf(r, 'NAME_ORIGINAL_SCRIPT'));
      for (const a of children(r, person ? 'INDIVIDUAL_ALIAS' : 'ENTITY_ALIAS')) e.name(textOf(a, 'ALIAS_NAME'));
      for (const n of children(r, 'NATIONALITY')) for (const v of children(n, 'VALUE')) e.nationality(v.text);
      for (const d of children(r, 'INDIVIDUAL_DATE_OF_BIRTH')) dateOfBirth(e, d);
      yield e.build();
    }
  }
  return { entities: entities(), meta };
}

function dateOfBirth(e: EntityBuilder, d: XmlNode): void {
  const date = textOf(d, 'DATE');
  const year = textOf(d, 'YEAR');
  const from = Number(textOf(d, 'FROM_YEAR'));
  const to = Number(textOf(d, 'TO_YEAR'));
  if (date) e.dateOfBirth(date);
  else if (year) e.dateOfBirth(year);
  else if (from && to) e.dateOfBirth(`${from} to ${to}`);
}
