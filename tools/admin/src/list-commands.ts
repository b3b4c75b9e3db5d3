import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { SUBJECTS, WATCHLIST_ID_FORMAT, type WatchlistLoadCommitReply } from '@verity/contracts';
import { DomainError } from '@verity/errors';
import type { CallOptions, RpcClient } from '@verity/platform';
import { isListFormat, LIST_FORMATS, ListParseError, loadList, type LoadSink } from '@verity/watchlist';
import { UsageError, required } from './args.js';

export const LIST_USAGE = `  lists load       --format ${LIST_FORMATS.join('|')} [--list NAME] [--published YYYY-MM-DD] FILE
                   (loads or replaces one watchlist; NAME defaults to the format's name, "opensanctions" for both of its)
  lists status`;

/** A list's default name: the format's, except that both OpenSanctions formats are one list (`opensanctions`). */
export function defaultListName(format: string): string {
  return format.startsWith('opensanctions-') ? 'opensanctions' : format;
}

/** The screening service's load subjects as a sink for `loadList`. */
export function rpcLoadSink(rpc: RpcClient, call: CallOptions, list: string, format: string, source: string): LoadSink<WatchlistLoadCommitReply> {
  return {
    begin: async () => (await rpc.call(SUBJECTS.screeningListsLoadBegin, { list, format, source }, call)).version,
    batch: async (version, first_seq, entities) => void (await rpc.call(SUBJECTS.screeningListsLoadBatch, { list, version, first_seq, entities }, call)),
    commit: (version, entities, published_on, skipped) => rpc.call(SUBJECTS.screeningListsLoadCommit, { list, version, entities, published_on, skipped }, call),
    abort: async (version, reason) => void (await rpc.call(SUBJECTS.screeningListsLoadAbort, { list, version, reason }, call)),
  };
}

/**
 * `lists load` (docs/watchlist.md): the file is read as a stream and its persons sent in batches into a new version
 * of the list, committed at the end, which replaces the list at once for every screening. A file that is not its
 * format, or not well formed, abandons the load: the list is unchanged and the refusal names the line at fault.
 */
async function load(f: Record<string, string>, file: string | undefined, rpc: RpcClient, call: CallOptions): Promise<unknown> {
  const format = required(f, 'format');
  if (!isListFormat(format)) throw new UsageError(`--format must be one of ${LIST_FORMATS.join(', ')}`);
  const list = f.list ?? defaultListName(format);
  if (!WATCHLIST_ID_FORMAT.test(list)) throw new UsageError('--list must be 1 to 64 lower-case letters, digits, "-" or "_"');
  if (f.published !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(f.published)) throw new UsageError('--published must be a date, YYYY-MM-DD');
  if (!file) throw new UsageError('the file to load is missing');
  // `npm run` starts in the repository's root: a relative path is the operator's, from where they typed it
  const full = path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
  try {
    if (!(await stat(full)).isFile()) throw new Error('not a file');
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  const started = Date.now();
  const sink = rpcLoadSink(rpc, call, list, format, path.basename(full).slice(0, 255));
  try {
    const { committed } = await loadList(format, createReadStream(full, { highWaterMark: 256 * 1024 }), sink, { publishedOn: f.published ?? null });
    return { ...committed, object: 'watchlist_load', seconds: Math.round((Date.now() - started) / 100) / 10 };
  } catch (e) {
    if (e instanceof ListParseError) {
      throw new DomainError('validation_error', { message: `${file} was refused and the list "${list}" is unchanged: ${e.message}`, details: { list, format } });
    }
    throw e;
  }
}

/** The list commands (docs/watchlist.md, docs/operations.md). */
export async function runListCommand(action: string, f: Record<string, string>, words: string[], rpc: RpcClient, call: CallOptions): Promise<unknown> {
  switch (action) {
    case 'load':
      if (words.length > 1) throw new UsageError('one file at a time');
      return load(f, words[0], rpc, call);
    case 'status':
      return rpc.call(SUBJECTS.screeningListsStatus, {}, call);
    default:
      throw new UsageError(`unknown command "lists ${action}"`);
  }
}
