import { EntityBuilder, requireId, type ListEntity } from '../entity.js';
import type { ListInput } from '../input.js';
import { child, children, xmlRecords } from '../xml.js';
import { dayOf, type ListMeta, type ListReading } from './reading.js';

/**
 * The EU consolidated financial-sanctions list (FSF) in XML: `<export generationDate="…">` with one
 * `<sanctionEntity logicalId="…">` per party: `<subjectType code="person|enterprise">`, `<nameAlias>` (whole name,
 * or first, middle and last name, as attributes), `<birthdate birthdate="YYYY-MM-DD" year=… monthOfYear=…
 * dayOfMonth=…>` and `<citizenship countryIso2Code="…">`.
 */
export function readEuFsf(input: ListInput): ListReading {
  const meta: ListMeta = { published: null };
  async function* entities(): AsyncGenerator<ListEntity> {
    const records = xmlRecords(input, {
      format: 'an EU financial-sanctions XML file',
      roots: ['export'],
      isRecord: (p, n) => p === 'export' && n === 'sanctionEntity',
      onRoot: (attrs) => (meta.published = dayOf(attrs.generationDate)),
    });
    for await (const r of records) {
      const id = requireId(r.attrs.logicalId, { line: r.line, element: 'sanctionEntity' }, 'a <sanctionEntity>');
      const code = (child(r, 'subjectType')?.attrs.code ?? '').toLowerCase();
      const e = new EntityBuilder(id, code === 'person' ? 'person' : code === 'enterprise' ? 'organization' : 'other');
      for (const a of children(r, 'nameAlias')) {
        if (a.attrs.wholeName?.trim()) e.name(a.attrs.wholeName);
        else e.name(a.attrs.firstName, a.attrs.middleName, a.attrs.lastName);
      }
      for (const b of children(r, 'birthdate')) {
        if (b.attrs.birthdate) e.dateOfBirth(b.attrs.birthdate);
        else if (b.attrs.year) e.dateOfBirthParts(Number(b.attrs.year), Number(b.attrs.monthOfYear) || null, Number(b.attrs.dayOfMonth) || null);
      }
      for (const c of children(r, 'citizenship')) e.nationality(c.attrs.countryIso2Code || c.attrs.countryDescription);
      yield e.build();
    }
  }
  return { entities: entities(), meta };
}
