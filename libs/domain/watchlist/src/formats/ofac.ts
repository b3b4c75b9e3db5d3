import { EntityBuilder, requireId, type EntityKind, type ListEntity } from '../entity.js';
import type { ListInput } from '../input.js';
import { child, children, descendants, textOf, xmlRecords } from '../xml.js';
import { dayOf, type ListMeta, type ListReading } from './reading.js';

const KINDS: Record<string, EntityKind> = { individual: 'person', entity: 'organization', vessel: 'vessel', aircraft: 'other' };

/**
 * The OFAC SDN list as published in XML (`sdn.xml`): `<sdnList>` with `<publshInformation>` (sic) and one
 * `<sdnEntry>` per party: `uid`, `firstName`, `lastName`, `sdnType`, the `akaList` of aliases, the
 * `dateOfBirthList`, the `nationalityList` and `citizenshipList`.
 */
export function readOfacSdn(input: ListInput): ListReading {
  const meta: ListMeta = { published: null };
  async function* entities(): AsyncGenerator<ListEntity> {
    for await (const r of xmlRecords(input, { format: 'an OFAC SDN XML file', roots: ['sdnList'], isRecord: (p, n) => p === 'sdnList' && (n === 'sdnEntry' || n === 'publshInformation') })) {
      if (r.name === 'publshInformation') {
        meta.published = dayOf(textOf(r, 'Publish_Date'), 'mdy');
        continue;
      }
      const id = requireId(textOf(r, 'uid'), { line: r.line, element: 'sdnEntry' }, 'an <sdnEntry>');
      const kind = KINDS[textOf(r, 'sdnType').toLowerCase()] ?? 'other';
      const e = new EntityBuilder(id, kind).name(textOf(r, 'firstName'), textOf(r, 'lastName'));
      for (const aka of descendants(child(r, 'akaList'), 'aka')) e.name(textOf(aka, 'firstName'), textOf(aka, 'lastName'));
      for (const item of descendants(child(r, 'dateOfBirthList'), 'dateOfBirthItem')) e.dateOfBirth(textOf(item, 'dateOfBirth'));
      for (const list of ['nationalityList', 'citizenshipList']) {
        for (const n of children(child(r, list), list === 'nationalityList' ? 'nationality' : 'citizenship')) e.nationality(textOf(n, 'country'));
      }
      yield e.build();
    }
  }
  return { entities: entities(), meta };
}
