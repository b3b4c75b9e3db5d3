import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { birthYears, compareDates, compareNationality, nameKeys, partyKeys, prepareName, scoreParty, tokenSimilarity, type ListedParty, type ScreenedPerson } from './index.js';
import { editDistance } from './match.js';
import { keysRead, KEY_ROWS_CAP } from './screen.js';

/** The candidates of `query` among `index` (each a name's keys) best first, as CANDIDATES_SQL ranks them (`keysRead`). */
function ranked(index: ReadonlyArray<Set<string>>, query: readonly string[]): number[] {
  const read = keysRead(query.map((key) => ({ key, n: Math.min(KEY_ROWS_CAP + 1, index.filter((keys) => keys.has(key)).length) })));
  return index
    .map((keys, i) => ({ i, shared: read.filter((k) => keys.has(k.key)).reduce((s, k) => s + k.weight, 0) }))
    .filter((c) => c.shared > 0)
    .sort((a, b) => b.shared - a.shared || a.i - b.i)
    .map((c) => c.i);
}

const party = (names: string[], dates_of_birth: string[] = [], nationalities: string[] = []): ListedParty => ({ names, dates_of_birth, nationalities });
const PETROVSKY = party(['Aleksandr Ivanovich PETROVSKY', 'Alexander PETROVSKIY'], ['1961-03-14', '1962'], ['RU', 'CY']);
const MANSOURI = party(['KHALID ABDUL RAHMAN AL-MANSOURI', 'خالد عبد الرحمن المنصوري', 'Khalid al-Mansuri'], ['1978-11-05', '1976', '1977'], ['YE']);
const PAPADAKIS = party(['Nikolaos Papadakis', 'Νικόλαος Παπαδάκης'], ['1970-07-02'], ['GR']);
const BIN_LADIN = party(['Usama bin Muhammad bin Awad BIN LADIN', 'أسامة بن محمد بن عوض بن لادن'], ['1957-03-10']);

const score = (p: ScreenedPerson, l: ListedParty) => scoreParty(p, l)!.score;

describe('scoreParty: one listed person, however the document spells them', () => {
  const same: Array<[string, ScreenedPerson, ListedParty]> = [
    ['as listed', { names: ['Aleksandr Ivanovich Petrovsky'], dateOfBirth: '1961-03-14', nationality: 'RU' }, PETROVSKY],
    ['Cyrillic, family name first', { names: ['Петровский Александр'], dateOfBirth: '1961-03-14' }, PETROVSKY],
    ['machine-readable zone, ICAO transliteration, names swapped', { names: ['PETROVSKII ALEKSANDR'], dateOfBirth: '1961-03-14', nationality: 'RUS' }, PETROVSKY],
    ['an initial and the date of birth', { names: ['A. Petrovsky'], dateOfBirth: '1961-03-14' }, PETROVSKY],
    ['Arabic script', { names: ['خالد المنصوري'], dateOfBirth: '1978-11-05' }, MANSOURI],
    ['another Latin spelling, article joined', { names: ['Khaled Almansouri'], dateOfBirth: '1978-11-05' }, MANSOURI],
    ['a year the list gives as a range', { names: ['MANSOORI KHALID ABDULRAHMAN'], dateOfBirth: '1977-02-02' }, MANSOURI],
    ['Greek', { names: ['Νικόλαος Παπαδάκης'], dateOfBirth: '1970-07-02' }, PAPADAKIS],
    ['two small spelling differences', { names: ['Nikolas Papadakes'], dateOfBirth: '1970-07-02' }, PAPADAKIS],
    ['a common transliteration', { names: ['Osama bin Laden'], dateOfBirth: '1957-03-10' }, BIN_LADIN],
    ['no date of birth to hold against', { names: ['Aleksandr Petrovsky'] }, PETROVSKY],
    ['an initial alone, no date: the listed person is possible, a reviewer clears it', { names: ['A. Petrovsky'] }, PETROVSKY],
    ['a typo in a consonant of the family name', { names: ['Aleksandr Petrowsly'], dateOfBirth: '1961-03-14' }, PETROVSKY],
    ['a German transliteration of Cyrillic', { names: ['Alexander Iwanowitsch Petrowskij'], dateOfBirth: '1961-03-14' }, PETROVSKY],
    ['a typo in a short given name, no date on either side', { names: ['Iror Petrovsky'] }, party(['Igor Petrovsky'])],
    ['Arabic names in other Latin vowels, word by word', { names: ['Khalid Hussein Nasser Al-Munoudi'], dateOfBirth: '1982-04-08' }, party(['Khaled Hussain Nasir Al-Munudi'], ['1982'])],
    ['ё written three ways', { names: ['Pjotr Artjomowitsch Koluschin'] }, party(['Пётр Артёмович Колушин'])],
    ['Latin letters for a name listed in Arabic script only', { names: ['Ali Samy El-Naqabi'], dateOfBirth: '1961-12-09' }, party(['علي سامي النقابي'], ['1961-12-09'])],
  ];
  for (const [label, person, listed] of same) {
    it(`matches: ${label}`, () => assert.ok(score(person, listed) >= 0.8, `${label}: ${JSON.stringify(scoreParty(person, listed))}`));
  }

  const other: Array<[string, ScreenedPerson, ListedParty]> = [
    ['a namesake born decades later', { names: ['Aleksandr Petrovsky'], dateOfBirth: '1985-06-01' }, PETROVSKY],
    ['only the given name in common', { names: ['Alexander Smith'], dateOfBirth: '1961-03-14' }, PETROVSKY],
    ['only the family name in common', { names: ['Maria Papadakis'], dateOfBirth: '1970-07-02' }, PAPADAKIS],
    ['an initial and a date of birth years apart', { names: ['A. Petrovsky'], dateOfBirth: '1985-06-01' }, PETROVSKY],
    ['a namesake born five years apart', { names: ['Aleksandr Ivanovich Petrovsky'], dateOfBirth: '1966-03-14', nationality: 'RU' }, PETROVSKY],
    ['an unlisted namesake of an Arabic name born five years apart', { names: ['Khalid Abdul Rahman Al-Mansouri'], dateOfBirth: '1983-11-05', nationality: 'YE' }, MANSOURI],
    ['someone else entirely', { names: ['Jane Doe'], dateOfBirth: '1961-03-14' }, PETROVSKY],
    ['particles alone', { names: ['Bin Al'] }, BIN_LADIN],
    ['a namesake of the same nationality born decades later', { names: ['Nikolaos Papadakis'], dateOfBirth: '1990-07-02', nationality: 'GR' }, PAPADAKIS],
    ['given and middle name in common, another family name', { names: ['Aleksandr Ivanovich Sokolov'] }, PETROVSKY],
    ['another family name of the same stem', { names: ['Nikolaos Papadimitriou'] }, PAPADAKIS],
    ['a given name where the list has its nisba, and a family name of its own', { names: ['Bilal Muhammad Al-Nafouki'] }, party(['Muhammad Al-Bilali'])],
    ['two words each a consonant off: another name, not a typo', { names: ['Marina Belenskaya'] }, party(['Marika Beletskaya'])],
  ];
  for (const [label, person, listed] of other) {
    it(`does not match: ${label}`, () => assert.ok(score(person, listed) < 0.8, `${label}: ${JSON.stringify(scoreParty(person, listed))}`));
  }

  it('says why: the listed name, each pair of words and how it matched, the order, the date and the nationality', () => {
    const m = scoreParty({ names: ['PETROVSKII ALEKSANDR'], dateOfBirth: '1961-03-14', nationality: 'RUS' }, PETROVSKY)!;
    assert.equal(m.matched_name, 'Alexander PETROVSKIY');
    assert.deepEqual(
      m.features.pairs.map((p) => [p.query, p.listed, p.how]),
      [
        ['PETROVSKII', 'PETROVSKIY', 'transliteration'],
        ['ALEKSANDR', 'ALEXANDER', 'phonetic'],
      ],
    );
    assert.deepEqual(m.features.unpaired, { query: 0, listed: 0 });
    assert.equal(m.features.reordered, true);
    assert.equal(m.features.date_of_birth, 'exact');
    assert.equal(m.features.nationality, 'match');
    assert.ok(m.score > m.features.name);
  });

  it('the date of birth raises or lowers the score by how well it agrees', () => {
    const at = (dateOfBirth: string | null) => score({ names: ['Nikolaos Papadakis'], dateOfBirth }, PAPADAKIS);
    assert.ok(at('1970-07-02') >= at(null));
    assert.ok(at(null) > at('1971-01-01'));
    assert.ok(at('1971-01-01') > at('1980-01-01'));
  });
});

describe('tokenSimilarity: why two words are one name', () => {
  const how = (a: string, b: string) => tokenSimilarity(prepareName(a).tokens[0]!, prepareName(b).tokens[0]!).how;
  it('names each way', () => {
    assert.equal(how('Müller', 'MULLER'), 'exact');
    assert.equal(how('Юлия', 'IULIIA'), 'transliteration');
    assert.equal(how('محمد', 'MUHAMMAD'), 'transliteration');
    assert.equal(how('MOHAMMED', 'MUHAMMAD'), 'phonetic');
    // the same code of another consonant, or a syllable more, is another name
    assert.equal(how('DUBET', 'DUBADOIS'), null);
    assert.equal(how('NOWAKILOWSKI', 'NOWAKILSKI'), null);
    // one edit past the first letter is a misspelling, even of a short word; another first letter is another name
    assert.equal(how('IGOR', 'IROR'), 'spelling');
    assert.equal(how('SAMI', 'RAMI'), null);
    assert.equal(how('ALI', 'علي'), 'transliteration');
    assert.equal(how('PETROV', 'PETROF'), 'spelling');
    assert.equal(how('J', 'JOHN'), 'initial');
    assert.equal(how('OMAR', 'AMIR'), null);
    assert.equal(how('MARIA', 'NIKOLAOS'), null);
  });
});

describe('compareDates and compareNationality', () => {
  it('grades a date of birth against the listed ones', () => {
    assert.equal(compareDates('1961-03-14', ['1961-03-14']), 'exact');
    assert.equal(compareDates('1961-03-14', ['1961']), 'year');
    assert.equal(compareDates('1961-03-14', ['1961-03']), 'year');
    assert.equal(compareDates('1961-03-14', ['1961-03-15']), 'near');
    assert.equal(compareDates('1961-03-14', ['1962']), 'near');
    assert.equal(compareDates('1961-03-14', ['1965', '1960-01-01']), 'near');
    assert.equal(compareDates('1961-03-14', ['1970']), 'mismatch');
    assert.equal(compareDates('1961-03-14', []), 'unknown');
    assert.equal(compareDates(null, ['1961']), 'unknown');
  });

  it('reads a nationality as ISO alpha-2, alpha-3 or ICAO', () => {
    assert.equal(compareNationality('RUS', ['RU']), 'match');
    assert.equal(compareNationality('D', ['DE']), 'match');
    assert.equal(compareNationality('FI', ['RU']), 'mismatch');
    assert.equal(compareNationality('FI', []), 'unknown');
  });
});

describe('nameKeys: candidates are found by a key they share', () => {
  it('every spelling of a listed name shares a key with it', () => {
    const pairs: Array<[string, string]> = [
      ['Петровский Александр', 'Aleksandr PETROVSKY'],
      ['خالد المنصوري', 'Khalid al-Mansuri'],
      ['Khaled Almansouri', 'KHALID ABDUL RAHMAN AL-MANSOURI'],
      ['Νικόλαος Παπαδάκης', 'Nikolaos Papadakis'],
      ['KADHAFI MUAMMAR', 'Muammar GADDAFI'],
      ['IULIIA SHCHERBAKOVA', 'Yulia Scherbakova'],
    ];
    for (const [a, b] of pairs) {
      const ka = new Set(nameKeys(prepareName(a)));
      assert.ok(nameKeys(prepareName(b)).some((k) => ka.has(k)), `${a} / ${b}`);
    }
  });

  it('folds German transliterations of Cyrillic into the same key and pair', () => {
    const pairs: Array<[string, string]> = [
      ['Schtscherbakow', 'Shcherbakov'],
      ['Tschernowa', 'Chernova'],
      ['Schukow', 'Zhukov'],
      ['Julija', 'Yuliya'],
      ['Charitonow', 'Kharitonov'],
      ['Zwetkow', 'Tsvetkov'],
      ['Jurjewitsch', 'Yuryevich'],
    ];
    for (const [a, b] of pairs) {
      const ka = new Set(nameKeys(prepareName(a)));
      assert.ok(nameKeys(prepareName(b)).some((k) => ka.has(k)), `${a} / ${b}`);
      assert.equal(tokenSimilarity(prepareName(a).tokens[0]!, prepareName(b).tokens[0]!).how, 'transliteration', `${a} / ${b}`);
    }
  });

  it('finds a word with one consonant misspelt by the start or the end of its consonants, whichever consonant', () => {
    const listed = new Set(nameKeys(prepareName('Aleksandr PETROVSKY')));
    for (const typo of ['Aleksandr Pelrovsky', 'Aleksandr Petrvosky', 'Aleksandr Petrovky', 'Aleksandr Petrovskky', 'Aleksandr Pertovsky', 'Aleksandr Petrozsky']) {
      assert.ok(nameKeys(prepareName(typo), true).some((k) => /^[az]:/.test(k) && listed.has(k)), typo);
    }
  });

  it('finds the listed person among namesakes: by initial, and by a misspelt family name', () => {
    const givens = ['Boris', 'Viktor', 'Dmitry', 'Sergei', 'Grigory', 'Mikhail', 'Pavel', 'Roman', 'Konstantin', 'Nikolai'];
    const crowd = [
      ...Array.from({ length: 400 }, (_, i) => `${givens[i % givens.length]} ${['Petrovsky', 'Petrov', 'Petrovich', 'Pertsev'][i % 4]}`),
      'Aleksandr Petrovsky',
    ];
    const index = crowd.map((n) => new Set(nameKeys(prepareName(n))));
    const rank = (query: string) => ranked(index, nameKeys(prepareName(query), true)).indexOf(crowd.length - 1);
    assert.equal(rank('A. Petrovsky'), 0);
    assert.equal(rank('Petrovsky A'), 0);
    assert.equal(rank('Aleksandr Petrovksy'), 0);
    assert.equal(rank('Alexander Petrowskij'), 0);
  });

  it('finds the listed person among many namesakes of the same words by the year of birth', () => {
    const crowd = [...Array.from({ length: 400 }, (_, i) => partyKeys(['Muhammad Ali Al-Mansouri'], [`${1940 + (i % 25)}-01-01`])), partyKeys(['محمد علي المنصوري'], ['1971-05-02'])];
    const index = crowd.map((k) => new Set(k));
    const q = nameKeys(prepareName('Mohammed Ali Al Mansuri'), true, birthYears(['1971-05-02'], true));
    assert.equal(ranked(index, q)[0], crowd.length - 1);
  });

  it('finds a misspelt family name among namesakes of other years by its end and the year of birth', () => {
    const crowd = [...Array.from({ length: 400 }, (_, i) => partyKeys(['Aleksandr Petrovsky'], [`${1940 + (i % 25)}-01-01`])), partyKeys(['Aleksandr Petrovsky'], ['1971-05-02'])];
    const index = crowd.map((k) => new Set(k));
    const q = nameKeys(prepareName('Aleksandr Pelrovsky'), true, birthYears(['1971-05-02']));
    assert.equal(ranked(index, q)[0], crowd.length - 1);
  });

  it('keeps the keys of a name bounded', () => {
    const n = nameKeys(prepareName('Aleksandr Ivanovich Konstantinovsky-Shcherbakov Petrovsky Sokolov'));
    assert.ok(n.length <= 60, `${n.length} keys`);
  });

  it('gives particles and initials no key', () => {
    assert.deepEqual(nameKeys(prepareName('bin al A.')), []);
  });
});

describe('spelling: a few edits, not a shared stem', () => {
  const how = (a: string, b: string) => tokenSimilarity(prepareName(a).tokens[0]!, prepareName(b).tokens[0]!).how;

  it('pairs a misspelling (one edit, two from 12 letters), not another name of the same stem or two edits away', () => {
    assert.equal(how('DELGAERO', 'DELGANERO'), 'spelling');
    assert.equal(how('PAPADAKES', 'PAPADAKIS'), 'spelling');
    assert.equal(how('KOZLOWSKI', 'KOZOLWSKI'), 'spelling');
    assert.equal(how('ROUSSET', 'ROUSSERIN'), null);
    assert.equal(how('KOZLOWCZYK', 'KOZLOWAK'), null);
    assert.equal(how('MULLOLNER', 'MULLOLBERG'), null);
    assert.equal(how('KONSTANTINOVSKY', 'KONSTANTINOWSKIJ'), 'transliteration');
  });

  it('counts letters dropped, added, replaced and two neighbours swapped, up to a limit', () => {
    assert.deepEqual(
      [editDistance('MARTIN', 'MARTIN', 2), editDistance('MARTIN', 'MRATIN', 2), editDistance('MARTIN', 'MARTEN', 2), editDistance('MARTIN', 'MARTINEZ', 2), editDistance('MARTIN', 'ROUSSEAU', 2)],
      [0, 1, 1, 2, 3],
    );
  });
});
