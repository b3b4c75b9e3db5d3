import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { countryCode, ListParseError, loadList, parseListDate, readList, type LoadedEntity, type LoadSink } from './index.js';

describe('dates of birth as lists write them', () => {
  it('reads each published spelling as a date as precise as it says', () => {
    const cases: Array<[string, string[]]> = [
      ['1937-04-28', ['1937-04-28']],
      ['28 Apr 1937', ['1937-04-28']],
      ['5 SEPT 1960', ['1960-09-05']],
      ['Apr 1937', ['1937-04']],
      ['1937', ['1937']],
      ['circa 1937', ['1937']],
      ['1960 to 1962', ['1960', '1961', '1962']],
      ['21/09/1975', ['1975-09-21']],
      ['dd/mm/1976', ['1976']],
      ['00/04/1976', ['1976-04']],
      ['2026-03-12T16:31:04.512+01:00', ['2026-03-12']],
      ['31 Feb 1970', ['1970-02']],
      ['unknown', []],
      ['1700', []],
      ['1900 to 1990', []],
    ];
    for (const [text, want] of cases) assert.deepEqual(parseListDate(text), want, text);
  });
});

describe('countries as lists name them', () => {
  it('gives ISO 3166-1 alpha-2 codes from codes and English names, nothing for the unknown', () => {
    const cases: Array<[string, string | null]> = [
      ['ru', 'RU'],
      ['Russia', 'RU'],
      ['Iraq', 'IQ'],
      ["Democratic People's Republic of Korea", 'KP'],
      ['Iran (Islamic Republic of)', 'IR'],
      ['Syria', 'SY'],
      ['00', null],
      ['Atlantis', null],
      ['', null],
    ];
    for (const [text, want] of cases) assert.equal(countryCode(text), want, text);
  });
});

/** A file delivered one byte at a time: every boundary a stream may cut at, inside a character too. */
function byteByByte(text: string): Uint8Array[] {
  return [...Buffer.from(text, 'utf8')].map((b) => Uint8Array.of(b));
}

describe('reading a stream', () => {
  it('reads records and names split across chunks anywhere, in any script', async () => {
    const xml = '<?xml version="1.0"?>\n<Designations><DateGenerated>11/03/2026</DateGenerated><Designation><UniqueID>X1</UniqueID><IndividualEntityShip>Individual</IndividualEntityShip><Names><Name><Name1>Ольга</Name1><Name6>Волкова</Name6></Name></Names></Designation></Designations>';
    const r = readList('uk-sanctions', byteByByte(xml));
    const all = [];
    for await (const e of r.entities) all.push(e);
    assert.deepEqual(all, [{ entity_id: 'X1', kind: 'person', names: ['Ольга Волкова'], dates_of_birth: [], nationalities: [] }]);
    assert.equal(r.meta.published, '2026-03-11');
  });

  it('refuses bytes that are not UTF-8', async () => {
    const r = readList('opensanctions-ftm', [Uint8Array.of(0x7b, 0xff, 0xfe, 0x7d, 0x0a)]);
    await assert.rejects(async () => {
      for await (const _ of r.entities);
    }, ListParseError);
  });
});

describe('loadList: batches of bounded size, committed at the end', () => {
  function recorder(fail = false) {
    const calls: string[] = [];
    const batches: LoadedEntity[][] = [];
    const sink: LoadSink<string> = {
      begin: async () => (calls.push('begin'), 7),
      batch: async (v, seq, entities) => {
        calls.push(`batch ${v} ${seq} ${entities.length}`);
        batches.push(entities);
        if (fail) throw new Error('down');
      },
      commit: async (v, n, published, skipped) => (calls.push(`commit ${v} ${n} ${published} ${JSON.stringify(skipped)}`), 'ok'),
      abort: async (v) => void calls.push(`abort ${v}`),
    };
    return { calls, batches, sink };
  }
  const ftm = (n: number) =>
    Array.from({ length: n }, (_, i) => `${JSON.stringify({ id: `p${i}`, schema: 'Person', properties: { name: [`Person ${i}`] }, last_change: '2026-01-0' + ((i % 9) + 1) })}\n`).join('') +
    '{"id":"c","schema":"Company","properties":{"name":["C"]}}\n{"id":"u","schema":"Person","properties":{}}\n';

  it('sends the persons in order, in batches, and counts what it did not send', async () => {
    const r = recorder();
    const out = await loadList('opensanctions-ftm', [ftm(5)], r.sink, { batchEntities: 2 });
    assert.deepEqual(r.calls, ['begin', 'batch 7 0 2', 'batch 7 2 2', 'batch 7 4 1', 'commit 7 5 2026-01-05 {"organization":1,"unnamed":1}']);
    assert.equal(out.committed, 'ok');
    assert.deepEqual(r.batches.flat().map((e) => e.entity_id), ['p0', 'p1', 'p2', 'p3', 'p4']);
  });

  it('sends the next batch while the one before is stored, two at most in flight, and commits after the last is stored', async () => {
    let open = 0;
    let most = 0;
    const stored: number[] = [];
    const sink: LoadSink<string> = {
      begin: async () => 1,
      batch: async (_v, seq) => {
        open++;
        most = Math.max(most, open);
        await new Promise((r) => setTimeout(r, seq === 0 ? 20 : 1));
        stored.push(seq);
        open--;
      },
      commit: async (_v, n) => (assert.equal(open, 0), `${n} after ${stored.join(',')}`),
      abort: async () => assert.fail('no abort'),
    };
    const out = await loadList('opensanctions-ftm', [ftm(6)], sink, { batchEntities: 1 });
    assert.equal(most, 2);
    // the first batch, slow, is stored after the second: each is stored under its own ordinals
    assert.equal(stored[0], 1);
    assert.deepEqual([[...stored].sort(), out.committed], [[0, 1, 2, 3, 4, 5], `6 after ${stored.join(',')}`]);
    const one = recorder();
    await loadList('opensanctions-ftm', [ftm(3)], one.sink, { batchEntities: 1, inFlight: 1 });
    assert.deepEqual(one.calls.slice(1, 4), ['batch 7 0 1', 'batch 7 1 1', 'batch 7 2 1']);
  });

  it('keeps a batch under its size in bytes', async () => {
    const r = recorder();
    await loadList('opensanctions-ftm', [ftm(10)], r.sink, { batchBytes: 200 });
    for (const b of r.batches) assert.ok(JSON.stringify(b).length <= 200 + 10 * b.length, JSON.stringify(b));
    assert.ok(r.batches.length > 2);
  });

  it('abandons the version on a malformed file or a failed batch, and commits nothing', async () => {
    const bad = recorder();
    await assert.rejects(loadList('opensanctions-ftm', [ftm(3) + 'nope\n'], bad.sink, { batchEntities: 1 }), /line 6: not a JSON object/);
    assert.deepEqual(bad.calls, ['begin', 'batch 7 0 1', 'batch 7 1 1', 'abort 7']);
    const down = recorder(true);
    await assert.rejects(loadList('opensanctions-ftm', [ftm(3)], down.sink), /down/);
    assert.deepEqual(down.calls, ['begin', 'batch 7 0 3', 'abort 7']);
  });
});
