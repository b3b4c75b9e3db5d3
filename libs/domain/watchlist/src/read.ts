import type { ListFormat } from './entity.js';
import { readEuFsf } from './formats/eu.js';
import { readOfacSdn } from './formats/ofac.js';
import { readOpenSanctionsCsv, readOpenSanctionsFtm } from './formats/opensanctions.js';
import type { ListReading } from './formats/reading.js';
import { readUkSanctions } from './formats/uk.js';
import { readUnSc } from './formats/un.js';
import type { ListInput } from './input.js';

const READERS: Record<ListFormat, (input: ListInput) => ListReading> = {
  'opensanctions-ftm': readOpenSanctionsFtm,
  'opensanctions-csv': readOpenSanctionsCsv,
  'ofac-sdn': readOfacSdn,
  'eu-fsf': readEuFsf,
  'un-sc': readUnSc,
  'uk-sanctions': readUkSanctions,
};

/**
 * Reads a list file of a published format as a stream of parties (docs/watchlist.md, "Formats"). The entities are
 * produced while the file is read, so a file of any size needs the memory of one record; a file that is not the
 * format, or not well formed, ends the stream with a `ListParseError` naming the line (and element) at fault.
 */
export function readList(format: ListFormat, input: ListInput): ListReading {
  return READERS[format](input);
}
