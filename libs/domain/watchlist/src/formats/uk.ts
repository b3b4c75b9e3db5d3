import { EntityBuilder, requireId, type EntityKind, type ListEntity } from '../entity.js';
import type { ListInput } from '../input.js';
import { child, children, descendants, textOf, xmlRecords } from '../xml.js';
import { dayOf, type ListMeta, type ListReading } from './reading.js';

const KINDS: Record<string, EntityKind> = { individual: 'person', entity: 'organization', ship: 'vessel' };

/**
 * The UK Sanctions List (FCDO) in XML: `<Designations>` with `<DateGenerated>` and one `<Designation>` per party:
 * `UniqueID`, `IndividualEntityShip`, `<Names>` of `<Name>` (`Name1` to `Name5`, the family name in `Name6`,
 * `NameType`), `<NonLatinNames>` (`NameNonLatinScript`), and for individuals `<IndividualDetails>` with `DOBs`
 * (`dd/mm/yyyy`, `dd` and `mm` where unknown) and `Nationalities`.
 */
export function readUkSanctions(input: ListInput): ListReading {
  const meta: ListMeta = { published: null };
  async function* entities(): AsyncGenerator<ListEntity> {
    const records = xmlRecords(input, {
      format: 'a UK Sanctions List XML file',
      roots: ['Designations'],
      isRecord: (p, n) => p === 'Designations' && (n === 'Designation' || n === 'DateGenerated'),
    });
    for await (const r of records) {
      if (r.name === 'DateGenerated') {
        meta.published = dayOf(r.text);
        continue;
      }
      const id = requireId(textOf(r, 'UniqueID'), { line: r.line, element: 'Designation' }, 'a <Designation>');
      const e = new EntityBuilder(id, KINDS[textOf(r, 'IndividualEntityShip').toLowerCase()] ?? 'other');
      for (const n of children(child(r, 'Names'), 'Name')) {
        e.name(textOf(n, 'Name1'), textOf(n, 'Name2'), textOf(n, 'Name3'), textOf(n, 'Name4'), textOf(n, 'Name5'), textOf(n, 'Name6'));
      }
      for (const n of descendants(child(r, 'NonLatinNames'), 'NameNonLatinScript')) e.name(n.text);
      const details = child(r, 'IndividualDetails');
      if (details) {
        for (const d of descendants(details, 'DOB')) e.dateOfBirth(d.text);
        for (const n of descendants(details, 'Nationality')) e.nationality(n.text);
      }
      yield e.build();
    }
  }
  return { entities: entities(), meta };
}
