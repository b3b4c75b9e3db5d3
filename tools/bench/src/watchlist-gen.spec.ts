import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { prepareName, readList, scoreParty, type ListEntity } from '@verity/watchlist';
import { asciiSpelling, ftmFile, oneEditApart, person, queries, typo, VARIANT_KINDS, type GeneratedPerson, type Query } from './watchlist-gen.js';

const SEED = 7;
const N = 2000;

async function readAll(): Promise<ListEntity[]> {
  const out: ListEntity[] = [];
  for await (const e of readList('opensanctions-ftm', ftmFile(SEED, N)).entities) out.push(e);
  return out;
}

describe('the generated watchlist of the bench', () => {
  it('is the same list for the same seed, and another for another seed', () => {
    assert.deepEqual(person(SEED, 123), person(SEED, 123));
    assert.notDeepEqual(person(SEED, 123).names, person(SEED + 1, 123).names);
    assert.deepEqual(queries(SEED, N, 20), queries(SEED, N, 20));
  });

  it('is a FollowTheMoney file the loader reads whole: persons with names, dates of birth and nationalities', async () => {
    const entities = await readAll();
    assert.equal(entities.length, N);
    assert.ok(entities.every((e) => e.kind === 'person' && e.names.length > 0));
    assert.equal(new Set(entities.map((e) => e.entity_id)).size, N);
    const share = (f: (e: ListEntity) => boolean) => entities.filter(f).length / N;
    assert.ok(share((e) => e.dates_of_birth.length > 0) > 0.8);
    assert.ok(share((e) => e.nationalities.length > 0) > 0.8);
    assert.ok(share((e) => e.names.length > 1) > 0.2);
    const g = person(SEED, 42);
    assert.deepEqual(entities[42]!.names, g.names);
    assert.deepEqual(entities[42]!.dates_of_birth, g.listedDob ? [g.listedDob] : []);
  });

  it('writes names in Latin with diacritics, Cyrillic, Greek and Arabic, and the names are varied', async () => {
    const names = (await readAll()).flatMap((e) => e.names);
    for (const [script, re] of [
      ['Latin diacritics', /[À-ɏ]/],
      ['Cyrillic', /\p{Script=Cyrillic}/u],
      ['Greek', /\p{Script=Greek}/u],
      ['Arabic', /\p{Script=Arabic}/u],
    ] as const) {
      assert.ok(names.filter((n) => re.test(n)).length > N / 20, `${script} names`);
    }
    const primaries = new Set(Array.from({ length: N }, (_, i) => person(SEED, i).names[0]));
    assert.ok(primaries.size > N * 0.95, `${primaries.size} distinct primary names of ${N}`);
  });

  it('makes each kind of query: variants of listed persons that differ from what the list writes, and controls', () => {
    const qs = queries(SEED, N, 50);
    const byKind = (k: Query['kind']) => qs.filter((q) => q.kind === k);
    for (const kind of VARIANT_KINDS) {
      const vs = byKind(kind);
      assert.equal(vs.length, 50);
      for (const v of vs) {
        const p = person(SEED, parseInt(v.entity_id!.slice(4), 36));
        assert.equal(p.id, v.entity_id);
        if (kind !== 'swap') assert.ok(!p.names.includes(v.name), `${kind}: ${v.name} is listed as is`);
        if (v.dateOfBirth !== null) assert.equal(v.dateOfBirth, p.dob);
      }
    }
    // a transliteration crosses scripts: some queries are Latin for a name listed in its own script, some the reverse
    const translit = byKind('transliteration');
    assert.ok(translit.some((q) => /^[\p{Script=Latin}\s.'-]+$/u.test(q.name) && person(SEED, parseInt(q.entity_id!.slice(4), 36)).names.some((n) => /\p{Script=Cyrillic}|\p{Script=Greek}|\p{Script=Arabic}/u.test(n))));
    assert.ok(translit.some((q) => /\p{Script=Cyrillic}|\p{Script=Greek}|\p{Script=Arabic}/u.test(q.name)));
    assert.ok(byKind('initials').every((q) => /^\p{Lu}\. /u.test(q.name)));
    for (const q of byKind('namesake')) assert.ok(q.entity_id === null && q.dateOfBirth !== null);
    assert.equal(byKind('other').length, 50);
  });

  it('makes controls the list can tell apart: names not listed, and namesakes of dated persons born 2 years or more apart', () => {
    const qs = queries(SEED, N, 50);
    const words = (ws: readonly string[]) => [...ws].map((w) => w.toLowerCase()).sort().join(' ');
    const listed = Array.from({ length: N }, (_, i) => person(SEED, i));
    const byWords = new Map<string, GeneratedPerson[]>();
    for (const p of listed) {
      const k = words(p.words.map((w) => w.native));
      byWords.set(k, [...(byWords.get(k) ?? []), p]);
    }
    const namesakes = qs.filter((q) => q.kind === 'namesake');
    assert.equal(namesakes.length, 50);
    for (const q of namesakes) {
      const of = listed.filter((p) => p.names[0] === q.name);
      assert.ok(of.length > 0, q.name);
      for (const p of of) {
        const same = byWords.get(words(p.words.map((w) => w.native)))!;
        assert.ok(same.every((l) => l.listedDob !== null && Math.abs(Number(l.listedDob.slice(0, 4)) - Number(q.dateOfBirth!.slice(0, 4))) >= 2), q.name);
      }
    }
    // an `other` is no listed person's name, in whatever script or spelling the list writes it
    const names = new Set(listed.flatMap((p) => p.names));
    assert.ok(qs.filter((q) => q.kind === 'other').every((q) => !names.has(q.name)));
  });

  it('draws names from a long tail: a few common, most rare', () => {
    const count = new Map<string, number>();
    for (let i = 0; i < N; i++) {
      const family = person(SEED, i).words.at(-1)!.native;
      count.set(family, (count.get(family) ?? 0) + 1);
    }
    const counts = [...count.values()].sort((a, b) => b - a);
    assert.ok(counts[0]! >= 10, `the most common family name ${counts[0]} times`);
    assert.ok(counts.filter((c) => c === 1).length > counts.length / 2, 'most family names once');
  });

  it('keeps family names one letter apart about as rare as a real list has them', () => {
    // OFAC's SDN list: 28 % of its individuals' family names have another one edit apart, a third of them spellings
    // of one name; a stem, a syllable and an ending combined freely gave 45 % at this size
    const family = [...new Set(Array.from({ length: 6000 }, (_, i) => person(SEED, i).words.filter((w) => w.role === 'family').map((w) => w.latin[0]!.toUpperCase())).flat())];
    const near = family.filter((f) => family.some((g) => oneEditApart(f, g))).length / family.length;
    assert.ok(near > 0.1 && near < 0.28, `${(near * 100).toFixed(1)} % of family names one edit from another`);
  });

  it('leaves out a control that the typo of an undated listed person could be', () => {
    const qs = queries(SEED, N, 50).filter((q) => q.entity_id === null);
    const listed = Array.from({ length: N }, (_, i) => person(SEED, i)).filter((p) => p.listedDob === null);
    const lower = (s: string) => s.toLowerCase().split(' ').sort();
    for (const q of qs) {
      const words = lower(q.name);
      for (const p of listed) {
        for (const name of p.names) {
          const ws = lower(name);
          if (ws.length !== words.length) continue;
          const differ = ws.filter((w) => !words.includes(w));
          const typo = differ.length === 1 && words.filter((w) => !ws.includes(w)).some((w) => w[0] === differ[0]![0] && oneEditApart(w, differ[0]!));
          assert.ok(!typo, `${q.kind} ${q.name}: a typo of ${name}, listed without a date of birth`);
        }
      }
    }
  });

  it('makes one edit per typo, and spells Latin names as an ASCII-only document does', () => {
    const r = () => 0.5;
    const t = typo(r, 'Aleksandr Petrov');
    assert.notEqual(t, 'Aleksandr Petrov');
    assert.ok(Math.abs(t.length - 'Aleksandr Petrov'.length) <= 1);
    assert.equal(asciiSpelling('Müller Łukasz Şahin Gödel'), 'Mueller Lukasz Sahin Goedel');
  });

  it('makes variants the matcher can score against their listed person (the bench measures how well)', () => {
    const qs = queries(SEED, N, 20).filter((q) => q.entity_id !== null);
    const scores = qs.map((q) => {
      const p = person(SEED, parseInt(q.entity_id!.slice(4), 36));
      const m = scoreParty({ names: [q.name], dateOfBirth: q.dateOfBirth, nationality: q.nationality }, { names: p.names, dates_of_birth: p.listedDob ? [p.listedDob] : [], nationalities: p.listedNationality ? [p.listedNationality] : [] });
      return m?.score ?? 0;
    });
    assert.ok(scores.every((s) => s > 0.3));
    assert.ok(prepareName(qs[0]!.name).tokens.length >= 2);
  });
});
