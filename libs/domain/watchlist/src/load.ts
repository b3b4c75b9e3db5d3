import type { ListEntity, ListFormat } from './entity.js';
import type { ListInput } from './input.js';
import { readList } from './read.js';

/** One loaded person as it is sent: a `ListEntity` of kind `person`, without the kind. */
export type LoadedEntity = Omit<ListEntity, 'kind'>;

/** Where a load goes (the screening service over NATS, for the admin tool): a new version, its batches, its end. */
export interface LoadSink<R> {
  /** Opens a new, not yet current version of the list. */
  begin(): Promise<number>;
  /** Stores entities `firstSeq`, `firstSeq + 1`, … of the version. */
  batch(version: number, firstSeq: number, entities: LoadedEntity[]): Promise<void>;
  /** Makes the version current; `entities` is how many were sent. */
  commit(version: number, entities: number, publishedOn: string | null, skipped: Record<string, number>): Promise<R>;
  /** Abandons the version: nothing of it is ever screened against. */
  abort(version: number, reason: string): Promise<void>;
}

export interface LoadOptions {
  /** The publication date to record instead of the file's own. */
  publishedOn?: string | null;
  /** The most entities, and bytes of JSON, of one batch. */
  batchEntities?: number;
  batchBytes?: number;
  /**
   * Batches sent before the first of them is answered (default 2): the next batch is read and sent while the service
   * stores the one before. Each is stored under its own ordinals, so the order they are stored in does not matter.
   */
  inFlight?: number;
}

export interface LoadOutcome<R> {
  committed: R;
  sent: number;
  skipped: Record<string, number>;
}

/**
 * Loads one list file into a sink (docs/watchlist.md, "How a load works"): the file is read as a stream, its persons
 * go out in batches of bounded size as they are read, and the version is committed once the whole file has been
 * read. Other parties (organizations, vessels, aircraft) and persons without a name are counted in `skipped`, not
 * sent. A file that is not its format, or not well formed, abandons the version and throws its `ListParseError`:
 * the list is unchanged. Memory stays that of one batch whatever the file's size.
 */
export async function loadList<R>(format: ListFormat, input: ListInput, sink: LoadSink<R>, opts: LoadOptions = {}): Promise<LoadOutcome<R>> {
  const maxEntities = opts.batchEntities ?? 1000;
  const maxBytes = opts.batchBytes ?? 256 * 1024;
  const version = await sink.begin();
  const reading = readList(format, input);
  const skipped: Record<string, number> = {};
  let sent = 0;
  let batch: LoadedEntity[] = [];
  let bytes = 0;
  const inFlight = Math.max(1, opts.inFlight ?? 2);
  const pending = new Set<Promise<void>>();
  let failed: unknown = null;
  const flush = async () => {
    if (batch.length === 0) return;
    const p: Promise<void> = sink.batch(version, sent, batch).then(
      () => void pending.delete(p),
      (e: unknown) => {
        pending.delete(p);
        failed ??= e;
      },
    );
    pending.add(p);
    sent += batch.length;
    batch = [];
    bytes = 0;
    while (pending.size >= inFlight) await Promise.race(pending);
    if (failed !== null) throw failed;
  };
  try {
    for await (const e of reading.entities) {
      if (e.kind !== 'person' || e.names.length === 0) {
        const why = e.kind !== 'person' ? e.kind : 'unnamed';
        skipped[why] = (skipped[why] ?? 0) + 1;
        continue;
      }
      const out: LoadedEntity = { entity_id: e.entity_id, names: e.names, dates_of_birth: e.dates_of_birth, nationalities: e.nationalities };
      const size = JSON.stringify(out).length;
      if (batch.length >= maxEntities || (batch.length > 0 && bytes + size > maxBytes)) await flush();
      batch.push(out);
      bytes += size;
    }
    await flush();
    await Promise.all(pending);
    if (failed !== null) throw failed;
  } catch (e) {
    await Promise.all(pending);
    await sink.abort(version, (e as Error).message.slice(0, 2000)).catch(() => undefined);
    throw e;
  }
  const committed = await sink.commit(version, sent, opts.publishedOn ?? reading.meta.published, skipped);
  return { committed, sent, skipped };
}
