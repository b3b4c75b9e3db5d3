/**
 * Watchlists loaded into the region (docs/watchlist.md, contract §21): each published format loads from a small
 * sample in its real structure, a malformed file is refused with the line at fault and changes nothing, and a
 * reload replaces a list in one commit while readers keep the old one until then. The screening service runs in
 * process against real Postgres and NATS; the loads go through the same streaming loader the admin tool uses.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SUBJECTS, type WatchlistLoadCommitReply, type WatchlistMonitorRequest, type WatchlistPerson, type WatchlistScreenReply, type WatchlistStatus } from '@verity/contracts';
import { query, refusal, startServiceUnderTest, testPrincipal, waitFor, type ServiceUnderTest } from '@verity/testing';
import { ListParseError, loadList, type ListFormat, type ListInput, type LoadOptions, type LoadSink, type ScreenedPerson } from '@verity/watchlist';
import { ScreeningModule } from '../src/app.module.js';
import { SCREENING_SERVICE, screeningEnv } from '../src/config.js';
import { WatchlistHandoverJob } from '../src/watchlists/watchlist-handover.job.js';
import { WatchlistScreening } from '../src/watchlists/watchlist-screening.service.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/watchlist');
const call = { principal: null, requestId: 'req_int_watchlists' };

let svc: ServiceUnderTest<unknown>;

before(async () => {
  svc = await startServiceUnderTest({ def: SCREENING_SERVICE, module: ScreeningModule, env: screeningEnv });
});

after(() => svc?.close());

/** The service's load subjects as the admin tool calls them (tools/admin, `rpcLoadSink`). */
function sink(list: string, format: string): LoadSink<WatchlistLoadCommitReply> {
  return {
    begin: async () => (await svc.rpc.call(SUBJECTS.screeningListsLoadBegin, { list, format, source: `${format}.sample` }, call)).version,
    batch: async (version, first_seq, entities) => void (await svc.rpc.call(SUBJECTS.screeningListsLoadBatch, { list, version, first_seq, entities }, call)),
    commit: (version, entities, published_on, skipped) => svc.rpc.call(SUBJECTS.screeningListsLoadCommit, { list, version, entities, published_on, skipped }, call),
    abort: async (version, reason) => void (await svc.rpc.call(SUBJECTS.screeningListsLoadAbort, { list, version, reason }, call)),
  };
}

function load(list: string, format: ListFormat, input: ListInput, opts: LoadOptions = {}) {
  return loadList(format, input, sink(list, format), { batchEntities: 2, ...opts });
}

const fixture = (file: string) => createReadStream(path.join(FIXTURES, file), { highWaterMark: 512 });

/** The hits of a screening on one list, at the default review threshold. */
async function hitsIn(list: string, person: ScreenedPerson) {
  return (await svc.app.get(WatchlistScreening).screen(person, 0.8)).hits.filter((h) => h.list === list);
}

/** The live `watchlist` check as a live run of the sessions service asks for it. */
function check(person: WatchlistPerson): Promise<WatchlistScreenReply> {
  return svc.rpc.call(SUBJECTS.screeningWatchlistScreen, { person }, { principal: testPrincipal({ mode: 'live' }), requestId: 'req_int_watchlist_check' });
}

async function status(list: string): Promise<WatchlistStatus | undefined> {
  return (await svc.rpc.call(SUBJECTS.screeningListsStatus, {}, call)).data.find((s) => s.list === list);
}

async function stored(version: number) {
  return query<{ entity_id: string; names: string[]; dates_of_birth: string[]; nationalities: string[] }>(
    svc.db.url,
    'SELECT entity_id, names, dates_of_birth, nationalities FROM screening.watchlist_entities WHERE version_id = $1 ORDER BY seq',
    [version],
  );
}

describe('watchlists: the live check without a list', () => {
  it('has no outcome while the region has no list loaded (the run then ends it `error`)', async () => {
    const r = await check({ family_name: 'PETROVSKY', given_names: ['ALEKSANDR'], date_of_birth: '1961-03-14' });
    assert.deepEqual(r, { outcome: null, lists: 0, best_score: 0, hits: [], review_threshold: 0.8, fail_threshold: null });
  });
});

describe('watchlists: each published format loads from a sample of its real structure', () => {
  const cases: Array<{
    format: ListFormat;
    file: string;
    published: string;
    skipped: Record<string, number>;
    persons: Array<{ entity_id: string; names: string[]; dates_of_birth: string[]; nationalities: string[] }>;
  }> = [
    {
      format: 'ofac-sdn',
      file: 'sdn.xml',
      published: '2026-03-14',
      skipped: { organization: 1, vessel: 1 },
      persons: [{ entity_id: '91001', names: ['Aleksandr Ivanovich PETROVSKY', 'Alexander PETROVSKIY', 'SASHA'], dates_of_birth: ['1961-03-14', '1962'], nationalities: ['RU', 'CY'] }],
    },
    {
      format: 'eu-fsf',
      file: 'eu-fsf.xml',
      published: '2026-03-12',
      skipped: { organization: 1 },
      persons: [{ entity_id: '700101', names: ['Nikolaos Papadakis', 'Νικόλαος Παπαδάκης'], dates_of_birth: ['1970-07-02', '1971'], nationalities: ['GR'] }],
    },
    {
      format: 'un-sc',
      file: 'un-sc.xml',
      published: '2026-03-10',
      skipped: { organization: 1 },
      persons: [
        {
          entity_id: '6900101',
          names: ['KHALID ABDUL RAHMAN AL-MANSOURI', 'خالد عبد الرحمن المنصوري', 'Khalid al-Mansuri', 'Abu Walid'],
          dates_of_birth: ['1978-11-05', '1976', '1977'],
          nationalities: ['YE'],
        },
        { entity_id: '6900102', names: ['RI SONG CHOL'], dates_of_birth: ['1969'], nationalities: ['KP'] },
      ],
    },
    {
      format: 'uk-sanctions',
      file: 'uk-sanctions.xml',
      published: '2026-03-11',
      skipped: { organization: 1 },
      persons: [
        { entity_id: 'RUS9001', names: ['Olga Sergeyevna VOLKOVA', 'Olga VOLKOVA-SMIRNOVA', 'Ольга Сергеевна Волкова'], dates_of_birth: ['1975-09-21', '1976'], nationalities: ['RU'] },
      ],
    },
    {
      format: 'opensanctions-ftm',
      file: 'entities.ftm.json',
      published: '2026-03-12',
      skipped: { organization: 1 },
      persons: [
        {
          entity_id: 'NK-a1b2c3d4e5f6',
          names: ['Dmitri Sergeyevich Orlov', 'Дмитрий Сергеевич Орлов', 'Dmitry Orlov', 'Dmitri Orlov'],
          dates_of_birth: ['1966-01-30'],
          nationalities: ['RU'],
        },
        { entity_id: 'Q99000001', names: ['Marta Kowalska-Nowak'], dates_of_birth: ['1980'], nationalities: ['PL'] },
      ],
    },
    {
      format: 'opensanctions-csv',
      file: 'targets.simple.csv',
      published: '2026-03-11',
      skipped: { organization: 1 },
      persons: [
        { entity_id: 'NK-a1b2c3d4e5f6', names: ['Dmitri Sergeyevich Orlov', 'Дмитрий Сергеевич Орлов', 'Dmitry Orlov'], dates_of_birth: ['1966-01-30'], nationalities: ['RU'] },
        { entity_id: 'Q99000001', names: ['Marta Kowalska-Nowak'], dates_of_birth: ['1980'], nationalities: ['PL'] },
      ],
    },
  ];
  for (const c of cases) {
    it(`${c.format}: ${c.file}`, async () => {
      const list = `sample-${c.format}`;
      const { committed } = await load(list, c.format, fixture(c.file));
      const names = c.persons.reduce((n, p) => n + p.names.length, 0);
      assert.equal(committed.list, list);
      assert.equal(committed.format, c.format);
      assert.equal(committed.published_on, c.published);
      assert.equal(committed.entities, c.persons.length);
      assert.equal(committed.names, names);
      assert.deepEqual(committed.skipped, c.skipped);
      assert.equal(committed.replaced_entities, 0);
      assert.equal(committed.loading, null);
      assert.deepEqual(await stored(committed.version!), c.persons);
      const s = await status(list);
      assert.equal(s?.version, committed.version);
      assert.equal(s?.entities, c.persons.length);
      assert.ok(s?.loaded_at && Date.parse(s.loaded_at) <= Date.now());
    });
  }
});

describe('watchlists: a malformed file is refused with the line at fault, and nothing changes', () => {
  const broken: Array<[ListFormat, string, RegExp]> = [
    // well formed up to a mismatched close tag on line 9, after two persons were already sent
    [
      'ofac-sdn',
      '<sdnList>\n<sdnEntry><uid>1</uid><lastName>ONE</lastName><sdnType>Individual</sdnType></sdnEntry>\n' +
        '<sdnEntry><uid>2</uid><lastName>TWO</lastName><sdnType>Individual</sdnType></sdnEntry>\n' +
        '<sdnEntry><uid>3</uid><lastName>THREE</lastName><sdnType>Individual</sdnType></sdnEntry>\n\n\n\n\n<sdnEntry><uid>4</uid><lastName>X</lastNme></sdnEntry></sdnList>\n',
      /^line 9, column \d+: not well-formed XML/,
    ],
    ['ofac-sdn', '<sdnList>\n<sdnEntry><uid>1</uid><lastName>ONE</lastName></sdnEntry>\n<sdnEntry>\n<lastName>NO ID</lastName></sdnEntry>\n</sdnList>', /^line 3, <sdnEntry>: an <sdnEntry> has no id$/],
    ['eu-fsf', '<?xml version="1.0"?>\n<sdnList/>', /^line 2, column \d+, <sdnList>: the root element is <sdnList>, not <export>/],
    ['opensanctions-ftm', '{"id":"a","schema":"Person","properties":{"name":["A B"]}}\n{"id":"b","schema":"Person","properties":{"name":["C D"]}}\n{"id":"c", schema:"Person"}\n', /^line 3: not a JSON object/],
    ['opensanctions-csv', 'id,name\nx,Y\n', /^line 1: the header has no "schema" column/],
    ['un-sc', '<CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL><DATAID>1</DATAID><FIRST_NAME>A</FIRST_NAME></INDIVIDUAL>', /not well-formed XML: unclosed tag/],
  ];
  for (const [format, text, message] of broken) {
    it(`${format}: ${message.source}`, async () => {
      const list = `broken-${format}`;
      const first = await load(list, format, fixture(format === 'ofac-sdn' ? 'sdn.xml' : format === 'eu-fsf' ? 'eu-fsf.xml' : format === 'un-sc' ? 'un-sc.xml' : format === 'opensanctions-csv' ? 'targets.simple.csv' : 'entities.ftm.json'));
      const before = await status(list);
      await assert.rejects(load(list, format, [text], { batchEntities: 1 }), (e: unknown) => {
        assert.ok(e instanceof ListParseError, String(e));
        assert.match(e.message, message);
        return true;
      });
      const after = await status(list);
      assert.deepEqual({ ...after, loading: null }, before);
      assert.equal(after?.loading, null);
      assert.equal(after?.version, first.committed.version);
      // the abandoned version's rows are cleared in the background; the current version's stay
      await waitFor(
        async () => (await query<{ n: number }>(svc.db.url, `SELECT count(*)::int AS n FROM screening.watchlist_entities WHERE version_id > $1 AND version_id IN (SELECT id FROM screening.watchlist_versions WHERE list_id = $2)`, [first.committed.version, list]))[0]!.n === 0,
        10_000,
      );
      assert.equal((await stored(first.committed.version!)).length, first.committed.entities);
    });
  }
});

const PETROVSKY: ScreenedPerson = { names: ['Aleksandr Petrovsky'], dateOfBirth: '1961-03-14' };
const ORLOV: ScreenedPerson = { names: ['Dmitri Orlov'], dateOfBirth: '1966-01-30' };

describe('watchlists: screening a person against every loaded list', () => {
  it('finds a listed person spelled differently, in another script, names swapped; not a namesake born later', async () => {
    // the lists loaded from the samples above
    const cyrillic = await hitsIn('sample-ofac-sdn', { names: ['Петровский Александр'], dateOfBirth: '1961-03-14' });
    assert.equal(cyrillic.length, 1);
    assert.equal(cyrillic[0]!.entity_id, '91001');
    assert.equal(cyrillic[0]!.features.reordered, true);
    assert.equal(cyrillic[0]!.features.date_of_birth, 'exact');
    assert.ok(cyrillic[0]!.score >= 0.8 && cyrillic[0]!.score <= 1);
    const arabic = await hitsIn('sample-un-sc', { names: ['خالد المنصوري'], dateOfBirth: '1978-11-05', nationality: 'YEM' });
    assert.deepEqual(arabic.map((h) => [h.entity_id, h.features.nationality]), [['6900101', 'match']]);
    assert.ok(arabic[0]!.features.pairs.some((p) => p.how === 'transliteration'));
    const greek = await hitsIn('sample-eu-fsf', { names: ['PAPADAKIS NIKOLAOS'], dateOfBirth: '1970-07-02' });
    assert.deepEqual(greek.map((h) => h.matched_name), ['Nikolaos Papadakis']);
    const namesake = await svc.app.get(WatchlistScreening).screen({ names: ['Aleksandr Petrovsky'], dateOfBirth: '1990-05-05' }, 0.8);
    assert.deepEqual(namesake.hits, []);
    assert.ok(namesake.best_score > 0 && namesake.best_score < 0.8);
    assert.ok(namesake.lists >= 6);
  });

  it('the live check: a listed person read from a document in another script, names swapped, is a hit and review; a namesake born later passes', async () => {
    const listed = await check({ family_name: 'Петровский', given_names: ['Александр'], date_of_birth: '1961-03-14', nationality: 'RUS' });
    assert.equal(listed.outcome, 'review');
    assert.ok(listed.lists >= 6);
    const hit = listed.hits.find((h) => h.list === 'sample-ofac-sdn')!;
    assert.deepEqual([hit.entity_id, hit.matched_name, hit.features.date_of_birth, hit.features.nationality], ['91001', 'Alexander PETROVSKIY', 'exact', 'match']);
    assert.ok(hit.score >= 0.8 && listed.best_score === listed.hits[0]!.score);
    const namesake = await check({ family_name: 'PETROVSKY', given_names: ['ALEKSANDR'], date_of_birth: '1990-05-05', nationality: 'FIN' });
    assert.deepEqual([namesake.outcome, namesake.hits], ['pass', []]);
    assert.ok(namesake.best_score > 0 && namesake.best_score < 0.8);
  });

  it('answers no hit and a best score of 0 for a name no list shares a key with', async () => {
    const r = await svc.app.get(WatchlistScreening).screen({ names: ['Zzyzx Qwpl'], dateOfBirth: '1990-05-05' }, 0.8);
    assert.deepEqual({ hits: r.hits, best: r.best_score }, { hits: [], best: 0 });
  });
});

describe('watchlists: a template\'s own thresholds (docs/watchlist.md, "Per workflow")', () => {
  const owner = testPrincipal({ mode: 'live', scopes: ['workflows:read', 'workflows:write'] });
  const as = { principal: owner, requestId: 'req_int_watchlist_template' };
  // listed as Aleksandr Ivanovich PETROVSKY, read without a date of birth: the name alone, a hit of about 0.89
  const person: WatchlistPerson = { family_name: 'PETROVSKY', given_names: ['ALEKSANDR'] };

  /** The live check as a live run asks it: the person, and the pinned version's thresholds when it sets any. */
  async function checkWith(templateId: string, version: number): Promise<WatchlistScreenReply> {
    const v = await svc.rpc.call(SUBJECTS.templatesVersion, { id: templateId, version }, as);
    const t = v.watchlist_thresholds;
    return svc.rpc.call(SUBJECTS.screeningWatchlistScreen, Object.keys(t).length > 0 ? { person, thresholds: t } : { person }, as);
  }

  it('are saved, returned on reads, and change the outcome of a screening over the region\'s configuration', async () => {
    const t = await svc.rpc.call(SUBJECTS.templatesCreate, { body: { name: 'PEP review', checks: ['watchlist'] } }, as);
    assert.deepEqual(t.watchlist_thresholds, {});
    const region = await checkWith(t.id, 1);
    assert.deepEqual([region.outcome, region.review_threshold, region.fail_threshold], ['review', 0.8, null]);
    const score = region.hits.find((h) => h.list === 'sample-ofac-sdn')!.score;
    assert.ok(score >= 0.8 && score < 0.95, String(score));

    // a stricter review threshold than the hit's score: no hit, the check passes
    const strict = await svc.rpc.call(SUBJECTS.templatesUpdate, { id: t.id, body: { watchlist_thresholds: { review: 0.95 } } }, as);
    assert.deepEqual([strict.version, strict.watchlist_thresholds], [2, { review: 0.95 }]);
    assert.deepEqual((await svc.rpc.call(SUBJECTS.templatesGet, { id: t.id }, as)).watchlist_thresholds, { review: 0.95 });
    const passed = await checkWith(t.id, 2);
    assert.deepEqual([passed.outcome, passed.hits.length, passed.review_threshold], ['pass', 0, 0.95]);

    // a fail threshold below the hit's score: the check fails
    await svc.rpc.call(SUBJECTS.templatesUpdate, { id: t.id, body: { watchlist_thresholds: { review: 0.8, fail: 0.85 } } }, as);
    const failed = await checkWith(t.id, 3);
    assert.deepEqual([failed.outcome, failed.review_threshold, failed.fail_threshold], ['fail', 0.8, 0.85]);

    // the versions keep what they were saved with: a run pinned to version 1 still applies the region's
    assert.equal((await checkWith(t.id, 1)).outcome, 'review');
  });

  it('are refused at save when out of range or review above fail, with param watchlist_thresholds', async () => {
    for (const w of [{ review: 0.3 }, { fail: 1.5 }, { review: 0.95, fail: 0.9 }]) {
      const e = await refusal(svc.rpc.call(SUBJECTS.templatesCreate, { body: { name: 'bad', watchlist_thresholds: w } }, as));
      assert.deepEqual([e.code, e.param], ['validation_error', 'watchlist_thresholds'], JSON.stringify(w));
    }
  });
});

describe('watchlists: a reload replaces the list in one commit', () => {
  it('readers see the old version until the commit; then the new one, and the old one is cleared', async () => {
    const list = 'reload';
    const first = await load(list, 'ofac-sdn', fixture('sdn.xml'));
    let sawLoading = false;
    const s = sink(list, 'opensanctions-ftm');
    const watching: LoadSink<WatchlistLoadCommitReply> = {
      ...s,
      batch: async (version, seq, entities) => {
        await s.batch(version, seq, entities);
        // mid-load: the list is still the first version, for status and for screening alike
        assert.deepEqual((await hitsIn(list, PETROVSKY)).map((h) => h.entity_id), ['91001']);
        assert.deepEqual(await hitsIn(list, ORLOV), []);
        const now = await status(list);
        assert.equal(now?.version, first.committed.version);
        assert.equal(now?.entities, 1);
        assert.equal(now?.loading?.version, version);
        sawLoading = true;
      },
    };
    const second = await loadList('opensanctions-ftm', fixture('entities.ftm.json'), watching, { batchEntities: 1 });
    assert.ok(sawLoading);
    assert.equal(second.committed.version! > first.committed.version!, true);
    assert.equal(second.committed.entities, 2);
    assert.equal(second.committed.replaced_entities, 1);
    assert.equal((await status(list))?.format, 'opensanctions-ftm');
    assert.deepEqual(await hitsIn(list, PETROVSKY), []);
    assert.deepEqual((await hitsIn(list, ORLOV)).map((h) => h.entity_id), ['NK-a1b2c3d4e5f6']);
    await waitFor(async () => (await stored(first.committed.version!)).length === 0, 10_000);
    assert.equal((await query(svc.db.url, 'SELECT 1 FROM screening.watchlist_keys WHERE version_id = $1', [first.committed.version])).length, 0);
  });

  it('a batch of a load that is no longer open is refused; a batch sent twice is stored once', async () => {
    const list = 'twice';
    const s = sink(list, 'ofac-sdn');
    const v = await s.begin();
    const person = { entity_id: 'p1', names: ['Jane Roe'], dates_of_birth: ['1990'], nationalities: ['US'] };
    await s.batch(v, 0, [person]);
    await s.batch(v, 0, [person]);
    const later = await s.begin(); // a later load of the same list wins
    const refused = await refusal(s.batch(v, 1, [person]));
    assert.equal(refused.code, 'invalid_state_transition');
    assert.equal((await refusal(s.commit(v, 1, null, {}))).code, 'invalid_state_transition');
    await s.batch(later, 0, [person]);
    const incomplete = await refusal(s.commit(later, 2, null, {}));
    assert.equal(incomplete.code, 'validation_error');
    const done = await s.commit(later, 1, '2026-01-02', { organization: 3 });
    assert.equal(done.entities, 1);
    assert.equal(done.published_on, '2026-01-02');
    assert.deepEqual(done.skipped, { organization: 3 });
  });

  it('refuses a bad list name, an unknown format and a nameless entity', async () => {
    assert.equal((await refusal(svc.rpc.call(SUBJECTS.screeningListsLoadBegin, { list: 'Bad Name', format: 'ofac-sdn', source: 'x' }, call))).code, 'validation_error');
    assert.equal((await refusal(svc.rpc.call(SUBJECTS.screeningListsLoadBegin, { list: 'ok', format: 'pdf', source: 'x' }, call))).code, 'validation_error');
    const v = (await svc.rpc.call(SUBJECTS.screeningListsLoadBegin, { list: 'bad-entity', format: 'ofac-sdn', source: 'x' }, call)).version;
    const bad = await refusal(
      svc.rpc.call(SUBJECTS.screeningListsLoadBatch, { list: 'bad-entity', version: v, first_seq: 0, entities: [{ entity_id: 'x', names: [], dates_of_birth: [], nationalities: [] }] }, call),
    );
    assert.equal(bad.code, 'validation_error');
  });
});

describe('watchlists: monitoring (docs/watchlist.md, "Monitoring")', () => {
  it('each version that becomes current is handed to sessions, again after a crash before it answered; a list-only screening names the version', async () => {
    const asked: WatchlistMonitorRequest[] = [];
    // sessions' side of sessions.watchlist.monitor.v1, answering as its RpcServer does
    const sub = svc.nc.subscribe(`${svc.root}.${SUBJECTS.sessionsWatchlistMonitor}`, {
      callback: (_err, msg) => {
        asked.push((msg.json<{ payload: WatchlistMonitorRequest }>()).payload);
        msg.respond(JSON.stringify({ ok: true, data: { accepted: true } }));
      },
    });
    try {
      const list = 'monitored';
      const first = (await load(list, 'ofac-sdn', fixture('sdn.xml'))).committed.version!;
      await waitFor(async () => asked.some((a) => a.list === list && a.version === first), 10_000);
      const [row] = await query<{ notified: boolean }>(svc.db.url, 'SELECT monitor_notified_at IS NOT NULL AS notified FROM screening.watchlist_versions WHERE id = $1', [first]);
      assert.equal(row?.notified, true);
      // the list-only screening monitoring asks for: that list alone, and the version it read
      const person = { family_name: 'PETROVSKY', given_names: ['ALEKSANDR'], date_of_birth: '1961-03-14' };
      const r = await svc.rpc.call(SUBJECTS.screeningWatchlistScreen, { person, list }, { principal: testPrincipal({ mode: 'live' }), requestId: 'req_int_watchlist_monitor' });
      assert.deepEqual([r.lists, r.list_version, r.hits.map((h) => [h.list, h.entity_id])], [1, first, [[list, '91001']]]);
      // a commit whose process died before sessions answered: handed over on a later pass
      const second = (await load(list, 'ofac-sdn', fixture('sdn.xml'))).committed.version!;
      await waitFor(async () => asked.some((a) => a.list === list && a.version === second), 10_000);
      await query(svc.db.url, 'UPDATE screening.watchlist_versions SET monitor_notified_at = NULL WHERE id = $1', [second]);
      await svc.app.get(WatchlistHandoverJob).pass();
      assert.equal(asked.filter((a) => a.list === list && a.version === second).length, 2);
      // the replaced version is never handed over again
      assert.equal(asked.filter((a) => a.list === list && a.version === first).length, 1);
    } finally {
      sub.unsubscribe();
    }
  });
});
