/**
 * The generated watchlist of `npm run bench -- watchlist` (docs/benchmarks.md, docs/watchlist.md "Measured"):
 * persons with names in several scripts (Latin with diacritics, Cyrillic, Greek, Arabic), dates of birth and
 * nationalities, written as OpenSanctions FollowTheMoney JSON lines so that the bench loads them the way an
 * operator's file is loaded; and the queries screened against them: variants of listed persons (typos,
 * transliterations, swapped name parts, initials) and persons who are not listed (namesakes born years apart,
 * other names). Deterministic: entity `i` of a seed is always the same person, so the queries need no copy of
 * the list. The PRNG is the one of the specimens (`random`, mulberry32).
 */
import { random } from '@verity/specimens';

/** Changes whenever the generator makes another list: the bench keeps a generated file only for the same version. */
export const GENERATOR_VERSION = 7;

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const chance = (r: Rng, p: number) => r() < p;

/** Cumulative Zipf weights (the `k`-th name of a pool weighs `1/k`) by pool size. */
const zipfTables = new Map<number, Float64Array>();
/**
 * One of `xs` by Zipf's law, the first most common (one draw, as `pick`): names on a real list follow a long tail, a
 * few very common (`Muhammad`, `Aleksandr`, `Ivanov`) and most rare, not a uniform pool where every name is as
 * common as any other.
 */
function zipf<T>(r: Rng, xs: readonly T[]): T {
  let table = zipfTables.get(xs.length);
  if (!table) {
    table = new Float64Array(xs.length);
    let sum = 0;
    for (let k = 0; k < xs.length; k++) table[k] = sum += 1 / (k + 1);
    for (let k = 0; k < xs.length; k++) table[k]! /= sum;
    zipfTables.set(xs.length, table);
  }
  const x = r();
  let lo = 0;
  let hi = xs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (table[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return xs[lo]!;
}

export type Culture = 'ru' | 'el' | 'ar' | 'de' | 'fr' | 'es' | 'pl' | 'tr' | 'en';
/** Share of the list by culture (Cyrillic, Greek and Arabic script for ru, el and ar). */
const CULTURES: ReadonlyArray<[Culture, number]> = [
  ['ru', 0.25],
  ['ar', 0.25],
  ['el', 0.08],
  ['de', 0.08],
  ['fr', 0.08],
  ['es', 0.1],
  ['pl', 0.04],
  ['tr', 0.06],
  ['en', 0.06],
];
const NATIONALITIES: Record<Culture, string[]> = {
  ru: ['RU', 'RU', 'RU', 'UA', 'BY', 'KZ'],
  el: ['GR', 'GR', 'CY'],
  ar: ['SA', 'AE', 'EG', 'IQ', 'SY', 'JO', 'LB', 'MA', 'DZ', 'TN', 'LY', 'YE', 'QA', 'KW', 'SD'],
  de: ['DE', 'DE', 'AT', 'CH'],
  fr: ['FR', 'FR', 'BE', 'CH'],
  es: ['ES', 'MX', 'AR', 'CO', 'VE', 'CU', 'PE'],
  pl: ['PL'],
  tr: ['TR'],
  en: ['GB', 'US', 'CA', 'AU', 'IE', 'ZA'],
};

// ---- names: given names by culture and sex, family names as a stem and an ending (a long tail, as real lists have)

const RU_GIVEN_M =
  'Александр Алексей Анатолий Андрей Антон Аркадий Артём Борис Вадим Валентин Валерий Василий Виктор Виталий Владимир Владислав Вячеслав Геннадий Георгий Глеб Григорий Даниил Денис Дмитрий Евгений Егор Захар Иван Игорь Илья Кирилл Константин Лев Леонид Максим Матвей Михаил Никита Николай Олег Павел Пётр Роман Руслан Семён Сергей Станислав Степан Тимофей Тимур Фёдор Эдуард Юрий Яков Ярослав'.split(' ');
const RU_GIVEN_F =
  'Алёна Алина Алла Анастасия Анна Валентина Валерия Вера Виктория Галина Дарья Евгения Екатерина Елена Елизавета Жанна Зоя Инна Ирина Карина Кристина Ксения Лариса Лидия Любовь Людмила Маргарита Марина Мария Надежда Наталья Нина Оксана Ольга Полина Раиса Светлана Софья Тамара Татьяна Ульяна Юлия Яна'.split(' ');
const RU_STEM_A = 'Аб Бар Бел Бог Бор Бул Вас Вол Вор Гал Гор Гус Дав Дем Дор Ег Ерм Жар Жук Зай Зах Иль Кал Кар Ков Кол Кор Куз Лав Лар Леб Мак Мал Мар Мед Мор Нес Нов Ор Ос Пав Пан Пет Пол Рад Раз Рог Сав Сем Сид Сок Сол Там Тар Тих Ус Фед Фил Фом Хар Хол Цвет Чер Шаб Шил Щер Юд Як Яр'.split(' ');
const RU_STEM_B = ['', '', '', 'ан', 'ен', 'ин', 'он', 'ат', 'уш', 'ич', 'ал', 'ер', 'ор', 'ык', 'ушк', 'ень', 'ял', 'от', 'ес', 'им', 'ур', 'як', 'ил', 'оч', 'аш', 'ем', 'ул', 'ей', 'ом', 'ад', 'ик', 'ев'];
const RU_END: ReadonlyArray<[string, string]> = [
  ['ов', 'ова'],
  ['ов', 'ова'],
  ['ев', 'ева'],
  ['ин', 'ина'],
  ['ский', 'ская'],
  ['енко', 'енко'],
  ['ук', 'ук'],
  ['цев', 'цева'],
  ['ников', 'никова'],
];

const EL_GIVEN_M =
  'Γεώργιος Δημήτριος Ιωάννης Κωνσταντίνος Νικόλαος Παναγιώτης Βασίλειος Χρήστος Αθανάσιος Μιχαήλ Ευάγγελος Σπυρίδων Αντώνιος Ανδρέας Θεόδωρος Στέφανος Αλέξανδρος Εμμανουήλ Ηλίας Σταύρος Παύλος Πέτρος Λεωνίδας Απόστολος Άγγελος Γρηγόριος Διονύσιος Ιάκωβος Κυριάκος Μάρκος Φώτιος Χαράλαμπος'.split(' ');
const EL_GIVEN_F =
  'Μαρία Ελένη Αικατερίνη Βασιλική Σοφία Αγγελική Γεωργία Δήμητρα Κωνσταντίνα Ευαγγελία Ιωάννα Χριστίνα Παρασκευή Αναστασία Ευφροσύνη Θεοδώρα Φωτεινή Χαρίκλεια Ζωή Ειρήνη Δέσποινα Καλλιόπη'.split(' ');
const EL_STEM = 'Παπαδ Γεωργ Νικολ Κωνσταντιν Βλαχ Αντων Μακρ Οικονομ Καραγιαν Δημητρ Ιωανν Σταθ Αλεξ Λαμπρ Χατζ Μαυρ Τσακ Ζαχαρ Κυρ Πετρ Σαρ Μπακ Ραπτ Φωτ Ψαρ Αργυρ Βασιλ Γιαννακ Δελ Θεοδωρ Καλ Λιαπ Μιχαλ Ντ Ξεν Πανταζ Ρηγ Σπανουδ Τζαν Φραγκ Χριστ'.split(' ');
/** A syllable between a Greek stem and its ending. */
const EL_MID = ['', '', '', 'ο', 'α', 'ι', 'αρ', 'ελ', 'ον', 'ακ', 'ιδ', 'ουλ', 'αν', 'ερ', 'ιτ', 'ομ'];
const EL_END: ReadonlyArray<[string, string]> = [
  ['όπουλος', 'οπούλου'],
  ['ίδης', 'ίδου'],
  ['άκης', 'άκη'],
  ['άτος', 'άτου'],
  ['ίου', 'ίου'],
  ['άκος', 'άκου'],
  ['έλλης', 'έλλη'],
  ['ιάδης', 'ιάδου'],
  ['ούλης', 'ούλη'],
  ['ας', 'α'],
];

/** Arabic given names with their usual Latin spellings (Arabic script writes no short vowels, so no rule gives them). */
const AR_GIVEN_M: ReadonlyArray<[string, string[]]> = [
  ['محمد', ['Muhammad', 'Mohammed', 'Mohamed', 'Mohammad']],
  ['أحمد', ['Ahmad', 'Ahmed']],
  ['علي', ['Ali']],
  ['حسن', ['Hassan', 'Hasan']],
  ['حسين', ['Hussein', 'Husayn', 'Hussain']],
  ['عمر', ['Omar', 'Umar']],
  ['خالد', ['Khalid', 'Khaled']],
  ['يوسف', ['Yusuf', 'Youssef', 'Yousef']],
  ['إبراهيم', ['Ibrahim', 'Ebrahim']],
  ['مصطفى', ['Mustafa', 'Moustafa']],
  ['سعيد', ['Said', 'Saeed']],
  ['طارق', ['Tariq', 'Tarek']],
  ['ماجد', ['Majid', 'Majed']],
  ['سامي', ['Sami', 'Samy']],
  ['كريم', ['Karim', 'Kareem']],
  ['جمال', ['Jamal', 'Gamal']],
  ['ناصر', ['Nasser', 'Nasir']],
  ['فيصل', ['Faisal', 'Faysal']],
  ['حمزة', ['Hamza', 'Hamzah']],
  ['زياد', ['Ziad', 'Ziyad']],
  ['رشيد', ['Rashid', 'Rachid']],
  ['وليد', ['Walid', 'Waleed']],
  ['عادل', ['Adel', 'Adil']],
  ['منصور', ['Mansour', 'Mansur']],
  ['هشام', ['Hisham', 'Hesham']],
  ['بلال', ['Bilal']],
  ['أنس', ['Anas']],
  ['صالح', ['Salih', 'Saleh']],
  ['عثمان', ['Othman', 'Uthman', 'Osman']],
  ['إسماعيل', ['Ismail', 'Ismael']],
  ['نبيل', ['Nabil', 'Nabeel']],
  ['ياسر', ['Yasser', 'Yasir']],
  ['مراد', ['Murad', 'Mourad']],
  ['رامي', ['Rami', 'Ramy']],
  ['سليمان', ['Sulaiman', 'Suleiman', 'Slimane']],
  ['عماد', ['Imad', 'Emad']],
  ['فارس', ['Fares', 'Faris']],
  ['هاني', ['Hani', 'Hany']],
  ['زكريا', ['Zakaria', 'Zakariya']],
  ['جعفر', ['Jafar', 'Jaafar']],
];
const AR_GIVEN_F: ReadonlyArray<[string, string[]]> = [
  ['فاطمة', ['Fatima', 'Fatma']],
  ['عائشة', ['Aisha', 'Aicha']],
  ['مريم', ['Maryam', 'Mariam']],
  ['زينب', ['Zainab', 'Zaynab']],
  ['خديجة', ['Khadija', 'Khadidja']],
  ['نور', ['Nour', 'Noor']],
  ['ليلى', ['Layla', 'Leila']],
  ['سارة', ['Sara', 'Sarah']],
  ['هدى', ['Huda', 'Hoda']],
  ['أمينة', ['Amina', 'Amineh']],
  ['رانيا', ['Rania', 'Ranya']],
  ['سلمى', ['Salma', 'Selma']],
  ['ياسمين', ['Yasmin', 'Yasmine']],
  ['هند', ['Hind']],
  ['دينا', ['Dina']],
];
/** Family names: an article and a word (`المنصوري`, Al-Mansouri, El Mansouri, Almansouri). */
const AR_FAMILY: ReadonlyArray<[string, string[]]> = [
  ['منصوري', ['Mansouri', 'Mansuri']],
  ['قحطاني', ['Qahtani', 'Kahtani']],
  ['شمري', ['Shammari', 'Shamari']],
  ['دوسري', ['Dosari', 'Dossary']],
  ['عتيبي', ['Otaibi', 'Utaybi']],
  ['زهراني', ['Zahrani']],
  ['غامدي', ['Ghamdi']],
  ['حربي', ['Harbi']],
  ['مطيري', ['Mutairi', 'Mutayri']],
  ['خطيب', ['Khatib', 'Khateeb']],
  ['نجار', ['Najjar', 'Naggar']],
  ['حداد', ['Haddad']],
  ['سيد', ['Sayed', 'Sayyid']],
  ['تميمي', ['Tamimi']],
  ['بغدادي', ['Baghdadi']],
  ['حلبي', ['Halabi']],
  ['مصري', ['Masri', 'Masry']],
  ['شامي', ['Shami']],
  ['عبيدي', ['Obaidi', 'Ubaydi']],
  ['جبوري', ['Jubouri', 'Jabouri']],
  ['كبيسي', ['Kubaisi', 'Kubaysi']],
  ['هاشمي', ['Hashemi', 'Hashimi']],
  ['عمري', ['Omari', 'Amri']],
  ['سعدي', ['Saadi', 'Sadi']],
  ['كعبي', ['Kaabi', 'Kabi']],
];
const AR_ARTICLE = ['Al-', 'Al ', 'El-', 'El '];
/**
 * Consonants of Arabic script with their usual Latin letters, from which the rarer family names are made (a nisba of
 * three root consonants, `الجبراني` Al-Jabrani): the long tail of a real list's Arabic names, not a few dozen.
 */
const AR_ROOT: ReadonlyArray<[string, string]> = [
  ['ب', 'b'], ['ت', 't'], ['ج', 'j'], ['د', 'd'], ['ر', 'r'], ['ز', 'z'], ['س', 's'], ['ش', 'sh'], ['ف', 'f'], ['ق', 'q'], ['ك', 'k'], ['ل', 'l'], ['م', 'm'], ['ن', 'n'], ['خ', 'kh'], ['غ', 'gh'],
];
const AR_VOWELS: ReadonlyArray<[string, string]> = [['a', 'a'], ['u', 'ou'], ['i', 'i']];

/** A nisba of three root consonants: in Arabic script, and its Latin spellings. */
function arabicRootName(r: Rng): [string, string[]] {
  const [c1, l1] = pick(r, AR_ROOT);
  const [c2, l2] = pick(r, AR_ROOT);
  const [c3, l3] = pick(r, AR_ROOT);
  const [v1, w1] = pick(r, AR_VOWELS);
  const [v2, w2] = pick(r, AR_VOWELS);
  const latin = (a: string, b: string) => capitalize(`${l1}${a}${l2}${b}${l3}i`);
  return [`${c1}${c2}${v2 === 'a' ? 'ا' : v2 === 'u' ? 'و' : 'ي'}${c3}ي`, [...new Set([latin(v1, w2), latin(w1, w2), latin(v1, v2)])]];
}

/** A syllable between a Latin-script stem and its ending (`Schwarz` + `en` + `berg`). */
const LATIN_MID = ['', '', '', 'en', 'an', 'el', 'er', 'in', 'ol', 'ar', 'et', 'is', 'ow', 'ur', 'ad', 'em', 'il', 'on'];
const LATIN: Record<'de' | 'fr' | 'es' | 'pl' | 'tr' | 'en', { m: string[]; f: string[]; stems: string[]; ends: string[] }> = {
  de: {
    m: 'Jürgen Klaus Günter Hans Wolfgang Uwe Dieter Stefan Michael Thomas Andreas Frank Jörg Matthias Björn Lukas Maximilian Tobias Florian Sebastian Johannes Rüdiger Volker Bernd Dirk'.split(' '),
    f: 'Jürgen Ursula Monika Petra Sabine Birgit Renate Karin Andrea Claudia Susanne Jutta Gisela Anja Katharina Lena Jülia Hannelore Brigitte Käthe Dörte'.split(' '),
    stems: 'Müll Schröd Schmi Schwarz Wei Wagn Beck Hoff Schäf Koch Richt Kl Wolf Neum Schwarzk Zimm Braun Krü Hofm Hart Lang Werm Krau Köhl Lehm Maier Schulz Fisch Böhm Günth Jäg Vogt Stei Haas Dietr Fuchs Kell Sommer Grün'.split(' '),
    ends: ['er', 'mann', 'berg', 'hardt', 'ner', 'ler', 'ke', 'brecht', 'hausen', 'ß'],
  },
  fr: {
    m: 'François Jérôme Stéphane Frédéric Hervé Rémi Benoît Sébastien Thierry Gérard Jean Pierre Michel André Philippe Nicolas Olivier Christophe Laurent Étienne Mathieu Cédric Loïc Yannick'.split(' '),
    f: 'Hélène Françoise Céline Nathalie Isabelle Sylvie Véronique Aurélie Mélanie Chloé Élodie Amélie Brigitte Josée Agnès Geneviève Margaux Noémie Sandrine Valérie'.split(' '),
    stems: 'Lef Mart Bern Dub Durand Mor Laur Sim Mich Lebl Garn Faur Rouss Blanc Guér Muller Henr Rouss Nicol Perr Mercier Bonn Lamb Fontain Chevali Robin Masson Sanch Gauthi Dumont'.split(' '),
    ends: ['èvre', 'in', 'ard', 'ois', 'et', 'eau', 'ier', 'elle', 'on', 'aux'],
  },
  es: {
    m: 'José Jesús Ángel Andrés Martín Óscar Iván Raúl Rubén Adrián Joaquín Sebastián Julián Tomás Ramón Nicolás Agustín Hernán Germán Álvaro Víctor Fernando Diego Alejandro'.split(' '),
    f: 'María Lucía Sofía Inés Ángela Mónica Verónica Begoña Raquel Rocío Maite Nuria Pilar Dolores Concepción Asunción Belén Natalia Beatriz'.split(' '),
    stems: 'Garc Rodr Mart Hern Lóp Gonz Pér Sánch Ram Torr Flor Riv Góm Díaz Vásq Castill Jimén Moren Ruiz Álvar Muñ Romer Alons Gutiérr Navarr Domíng Vázqu Ramír Serr Blanc Suár Molin Ortiz Delg Castr Ortega Rubi Marín Núñ'.split(' '),
    ends: ['ía', 'íguez', 'ínez', 'ández', 'ez', 'ero', 'ado', 'illo', 'ón', 'ano'],
  },
  pl: {
    m: 'Łukasz Paweł Michał Wojciech Krzysztof Grzegorz Jarosław Tomasz Piotr Marcin Przemysław Zbigniew Mirosław Stanisław Bartłomiej Maciej Jędrzej Kacper Szymon Mikołaj'.split(' '),
    f: 'Małgorzata Agnieszka Katarzyna Bożena Grażyna Jadwiga Elżbieta Żaneta Urszula Joanna Magdalena Dorota Halina Wiesława Zofia'.split(' '),
    stems: 'Wójc Kowal Nowak Lewand Kamiń Zieliń Szymań Woźni Dąbrow Kozłow Jankow Mazur Kwiatkow Krawcz Piotrow Grabow Zając Pawłow Michalsk Król Wieczor Jabłoń Wróbl Majewsk Olszew Stępień Górsk Rutk Sikor Baran'.split(' '),
    ends: ['ik', 'ski', 'czyk', 'ak', 'ewicz', 'owski', 'iak', 'ek', 'ła', 'ny'],
  },
  tr: {
    m: 'Mehmet Mustafa Ahmet Ali Hüseyin Hasan İbrahim İsmail Osman Yusuf Murat Ömer Ramazan Halil Süleyman Abdullah Mahmut Salih Recep Kemal Orhan Çağlar Gökhan Ümit Şükrü Oğuz'.split(' '),
    f: 'Fatma Ayşe Emine Hatice Zeynep Elif Meryem Şerife Zehra Sultan Hanife Merve Özlem Gülşen Büşra Çiğdem Şeyma Gülay Dilek'.split(' '),
    stems: 'Yılm Kaya Demir Şah Çel Yıldız Yıldırım Öztürk Aydın Özdem Arsl Doğ Kılıç Aslan Çetin Kara Koç Kurt Özkan Şim Polat Korkm Özcan Çakır Erdoğ Yavuz Can Acar Şen Aktaş Güler Yalçın Güneş Bozkurt Bulut'.split(' '),
    ends: ['az', 'an', 'er', 'oğlu', 'gil', 'türk', 'kaya', 'soy', 'baş', 'ci'],
  },
  en: {
    m: 'James John Robert Michael William David Richard Joseph Thomas Charles Christopher Daniel Matthew Anthony Mark Donald Steven Paul Andrew Joshua Kenneth Kevin Brian George Timothy'.split(' '),
    f: 'Mary Patricia Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen Lisa Nancy Betty Margaret Sandra Ashley Kimberly Emily Donna Michelle'.split(' '),
    stems: 'Smith John Will Brown Jon Mill Dav Wils And Thom Tayl Moor Jack Mart Lee Thomps Whit Harr Clark Lew Robins Walk Young All King Wright Scott Hill Green Adams Bak Nels Carter Mitch Roberts Turn Phill Camp Park Evans Edwards Coll'.split(' '),
    ends: ['', 'son', 'ton', 'ley', 'field', 'er', 'ford', 'well', 'wood', 's'],
  },
};

// ---- transliteration: the Latin spellings of a Cyrillic or Greek word, by several systems

/** ICAO 9303 (Russian passports since 2013), BGN/PCGN (US and UK lists), German (Duden): one Cyrillic word, three ways. */
const CYRILLIC_SYSTEMS: ReadonlyArray<Record<string, string>> = [
  { а: 'a', б: 'b', в: 'v', г: 'g', д: 'd', е: 'e', ё: 'e', ж: 'zh', з: 'z', и: 'i', й: 'i', к: 'k', л: 'l', м: 'm', н: 'n', о: 'o', п: 'p', р: 'r', с: 's', т: 't', у: 'u', ф: 'f', х: 'kh', ц: 'ts', ч: 'ch', ш: 'sh', щ: 'shch', ъ: 'ie', ы: 'y', ь: '', э: 'e', ю: 'iu', я: 'ia' },
  { а: 'a', б: 'b', в: 'v', г: 'g', д: 'd', е: 'e', ё: 'yo', ж: 'zh', з: 'z', и: 'i', й: 'y', к: 'k', л: 'l', м: 'm', н: 'n', о: 'o', п: 'p', р: 'r', с: 's', т: 't', у: 'u', ф: 'f', х: 'kh', ц: 'ts', ч: 'ch', ш: 'sh', щ: 'shch', ъ: '', ы: 'y', ь: '', э: 'e', ю: 'yu', я: 'ya' },
  { а: 'a', б: 'b', в: 'w', г: 'g', д: 'd', е: 'e', ё: 'jo', ж: 'sch', з: 's', и: 'i', й: 'j', к: 'k', л: 'l', м: 'm', н: 'n', о: 'o', п: 'p', р: 'r', с: 's', т: 't', у: 'u', ф: 'f', х: 'ch', ц: 'z', ч: 'tsch', ш: 'sch', щ: 'schtsch', ъ: '', ы: 'y', ь: '', э: 'e', ю: 'ju', я: 'ja' },
];

/** ELOT 743 (Greek passports) and a phonetic spelling as English-language lists write Greek names. */
const GREEK_SYSTEMS: ReadonlyArray<{ pairs: Record<string, string>; single: Record<string, string> }> = [
  {
    pairs: { ου: 'ou', αυ: 'av', ευ: 'ev', γγ: 'ng', γκ: 'gk', μπ: 'mp', ντ: 'nt' },
    single: { α: 'a', β: 'v', γ: 'g', δ: 'd', ε: 'e', ζ: 'z', η: 'i', θ: 'th', ι: 'i', κ: 'k', λ: 'l', μ: 'm', ν: 'n', ξ: 'x', ο: 'o', π: 'p', ρ: 'r', σ: 's', ς: 's', τ: 't', υ: 'y', φ: 'f', χ: 'ch', ψ: 'ps', ω: 'o' },
  },
  {
    pairs: { ου: 'ou', αυ: 'av', ευ: 'ef', αι: 'e', ει: 'i', οι: 'i', γγ: 'ng', γκ: 'g', μπ: 'b', ντ: 'd' },
    single: { α: 'a', β: 'v', γ: 'g', δ: 'd', ε: 'e', ζ: 'z', η: 'i', θ: 'th', ι: 'i', κ: 'k', λ: 'l', μ: 'm', ν: 'n', ξ: 'x', ο: 'o', π: 'p', ρ: 'r', σ: 's', ς: 's', τ: 't', υ: 'i', φ: 'f', χ: 'h', ψ: 'ps', ω: 'o' },
  },
];

/** Which spelling system a Latin rendering uses: ICAO and BGN/PCGN (passports, the US, UK and UN lists) far more than German. */
const system = (r: Rng) => { const x = r(); return x < 0.45 ? 0 : x < 0.9 ? 1 : 2; };

const capitalize = (s: string) => (s === '' ? s : s[0]!.toUpperCase() + s.slice(1));
const stripAccents = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC');

function cyrillicToLatin(word: string, system: number): string {
  const map = CYRILLIC_SYSTEMS[system]!;
  return capitalize([...word.toLowerCase()].map((c) => map[c] ?? c).join(''));
}

function greekToLatin(word: string, system: number): string {
  const { pairs, single } = GREEK_SYSTEMS[system]!;
  const w = stripAccents(word.toLowerCase());
  let out = '';
  for (let i = 0; i < w.length; i++) {
    const two = w.slice(i, i + 2);
    if (pairs[two] !== undefined) {
      out += pairs[two];
      i++;
    } else out += single[w[i]!] ?? w[i];
  }
  return capitalize(out);
}

/** As a machine-readable zone or an ASCII-only form writes a Latin name: `Müller` → `Mueller`, `Łukasz` → `Lukasz`. */
export function asciiSpelling(word: string): string {
  const expanded = word.replace(/Ä/g, 'Ae').replace(/Ö/g, 'Oe').replace(/Ü/g, 'Ue').replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue').replace(/ß/g, 'ss');
  return stripAccents(expanded).replace(/ł/g, 'l').replace(/Ł/g, 'L').replace(/ı/g, 'i').replace(/İ/g, 'I');
}

// ---- family names: as far apart as a real list's

/** Two spellings one edit apart: a letter dropped, added or replaced, or two neighbours swapped. */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  let j = 0;
  while (j < a.length - i && j < b.length - i && a[a.length - 1 - j] === b[b.length - 1 - j]) j++;
  const ra = a.length - i - j;
  const rb = b.length - i - j;
  return (ra <= 1 && rb <= 1) || (ra === 2 && rb === 2 && a[i] === b[i + 1] && a[i + 1] === b[i]);
}

/** A word and its spellings with one letter left out: two words one edit apart share one of them. */
function deletions(w: string): string[] {
  const out = new Set([w]);
  for (let i = 0; i < w.length; i++) out.add(w.slice(0, i) + w.slice(i + 1));
  return [...out];
}

/** Words, with a lookup of those one edit from a given word (by their deletions). */
export class NeighbourIndex {
  private readonly byDeletion = new Map<string, string[]>();
  private readonly words = new Set<string>();

  add(word: string): void {
    if (this.words.has(word)) return;
    this.words.add(word);
    for (const d of deletions(word)) (this.byDeletion.get(d) ?? this.byDeletion.set(d, []).get(d)!).push(word);
  }

  /** The words one edit from `word` (not `word` itself). */
  near(word: string): string[] {
    const out = new Set<string>();
    for (const d of deletions(word)) for (const w of this.byDeletion.get(d) ?? []) if (oneEditApart(word, w)) out.add(w);
    return [...out];
  }
}

/**
 * The share of family names kept although a name kept before is one edit from it. A stem, a syllable and an ending
 * combined freely make names one letter apart far more often than a real list has them (`Schrodinke`,
 * `Schrodenke`): of the 4,553 family names of the 6,062 persons of OFAC's SDN list, 28 % have another one edit
 * apart, about a third of them spellings of one name (`HUSSEIN`/`HUSSAIN`) or its feminine (`TOKAREV`/`TOKAREVA`);
 * this keeps the generated list's share near that of different names: 20 % at the same size, against 45 % before
 * (docs/watchlist.md, "Measured").
 */
const NEIGHBOURS_KEPT = 0.08;

type FamilyTable = Map<string, ReadonlyArray<[string, string]>>;
const familyTables = new Map<Culture, FamilyTable>();
/** All family names of every table so far, by their usual Latin spelling: what a new name must be apart from. */
const familyNames = new NeighbourIndex();

/** The usual Latin spelling of a native word, lower case: what the family names are kept apart by. */
function usualLatin(native: string, culture: Culture): string {
  return (culture === 'ru' ? cyrillicToLatin(native, 0) : culture === 'el' ? greekToLatin(native, 0) : asciiSpelling(native)).toLowerCase();
}

/** Whether a new family name is kept: always when no name kept is one edit from it, else by `NEIGHBOURS_KEPT`. */
function keepFamily(r: Rng, latin: string): boolean {
  if (familyNames.near(latin).length > 0 && !chance(r, NEIGHBOURS_KEPT)) return false;
  familyNames.add(latin);
  return true;
}

/**
 * Per stem, the syllables and endings (masculine, feminine) it takes: every combination of the culture's pools, each
 * kept unless one edit from a name kept before (`keepFamily`), the commonest stems first. Fixed for every seed: a
 * culture's names are the same, whichever list draws from them.
 */
function familyTable(culture: Culture): FamilyTable {
  buildFamilyNames();
  return familyTables.get(culture)!;
}

/** Every culture's family names at once, in one order: a name kept depends on those kept before it, whichever person asks first. */
function buildFamilyNames(): void {
  if (rootNames) return;
  rootNames = buildArabicRootNames();
  for (const [c] of CULTURES) if (c !== 'ar') familyTables.set(c, buildFamilyTable(c));
}

function buildFamilyTable(culture: Culture): FamilyTable {
  const [stems, mids, ends]: [readonly string[], readonly string[], ReadonlyArray<readonly [string, string]>] =
    culture === 'ru'
      ? [RU_STEM_A, [...new Set(RU_STEM_B)], RU_END.filter((e, i) => RU_END.indexOf(e) === i)]
      : culture === 'el'
        ? [EL_STEM, [...new Set(EL_MID)], EL_END]
        : culture === 'ar'
          ? [[], [], []]
          : [LATIN[culture].stems, [...new Set(LATIN_MID)], LATIN[culture].ends.map((e) => [e, e] as const)];
  const r = random(0xfa3 + CULTURES.findIndex(([c]) => c === culture));
  const table: FamilyTable = new Map();
  for (const stem of stems) {
    if (table.has(stem)) continue;
    const combos = mids.flatMap((mid) => ends.map(([m, f]) => [mid, m, f] as const));
    // a fixed shuffle, so that the kept ones are not the first syllables of the pool
    for (let i = combos.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [combos[i], combos[j]] = [combos[j]!, combos[i]!];
    }
    const kept: Array<[string, string]> = [];
    for (const [mid, m, f] of combos) {
      const male = stem + mid + m;
      if (!keepFamily(r, usualLatin(male, culture))) continue;
      if (f !== m) familyNames.add(usualLatin(stem + mid + f, culture));
      kept.push([mid + m, mid + f]);
    }
    table.set(stem, kept.length > 0 ? kept : [[combos[0]![0] + combos[0]![1], combos[0]![0] + combos[0]![2]]]);
  }
  return table;
}

/** A family name of the culture: its stem by Zipf's law, then one of the syllables and endings the stem takes. */
function familyName(r: Rng, culture: Culture, female: boolean): string {
  const stems = culture === 'ru' ? RU_STEM_A : culture === 'el' ? EL_STEM : LATIN[culture as keyof typeof LATIN].stems;
  const table = familyTable(culture);
  const stem = zipf(r, stems);
  const [m, f] = pick(r, table.get(stem)!);
  return stem + (female ? f : m);
}

let rootNames: Array<[string, string[]]> | null = null;
/** The nisbas of three root consonants, each kept unless one edit from a name kept before (`keepFamily`). */
function arabicRootNames(): ReadonlyArray<[string, string[]]> {
  buildFamilyNames();
  return rootNames!;
}

function buildArabicRootNames(): Array<[string, string[]]> {
  // the fixed Arabic family names and the nisbas of given names first: the root names must be apart from them too
  for (const [, l] of AR_FAMILY) familyNames.add(l[0]!.toLowerCase());
  for (const [, l] of AR_GIVEN_M) familyNames.add(`${l[0]!.replace(/[aeiy]$/, '')}i`.toLowerCase());
  const r = random(0xfa3 + 100);
  const seen = new Set<string>();
  const out: Array<[string, string[]]> = [];
  for (let i = 0; i < 20_000; i++) {
    const name = arabicRootName(r);
    if (seen.has(name[0])) continue;
    seen.add(name[0]);
    if (keepFamily(r, name[1][0]!.toLowerCase())) out.push(name);
  }
  return out;
}

// ---- persons

/** One word of a person's name: as the culture writes it, and its Latin spellings (the first the usual one). */
interface Word {
  native: string;
  latin: string[];
  role: 'given' | 'middle' | 'family';
}

/** A generated person: who they are, and how the list writes them. */
export interface GeneratedPerson {
  index: number;
  id: string;
  culture: Culture;
  /** Given names first, family name last. */
  words: Word[];
  /** The list writes the family name first. */
  familyFirst: boolean;
  /** The real date of birth, `YYYY-MM-DD`. */
  dob: string;
  nationality: string;
  /** What the list gives: every name (the primary first), the date of birth (as precise as it gives it), the nationality. */
  names: string[];
  listedDob: string | null;
  listedNationality: string | null;
}

const nativeScript = (c: Culture) => c === 'ru' || c === 'el' || c === 'ar';

function cultureOf(r: Rng): Culture {
  let x = r();
  for (const [c, share] of CULTURES) {
    if (x < share) return c;
    x -= share;
  }
  return 'en';
}

function latinSpellings(native: string, culture: Culture): string[] {
  if (culture === 'ru') return [...new Set(CYRILLIC_SYSTEMS.map((_, s) => cyrillicToLatin(native, s)))];
  if (culture === 'el') return [...new Set(GREEK_SYSTEMS.map((_, s) => greekToLatin(native, s)))];
  return [...new Set([native, asciiSpelling(native)])];
}

function ruPatronymic(father: string, female: boolean): string {
  const stem = father.endsWith('й') ? father.slice(0, -1) + 'е' : father.endsWith('а') || father.endsWith('я') ? father.slice(0, -1) + 'о' : father + 'о';
  return stem + (female ? 'вна' : 'вич');
}

function wordsOf(r: Rng, culture: Culture, female: boolean): Word[] {
  const w = (native: string, role: Word['role'], latin?: string[]): Word => ({ native, role, latin: latin ?? latinSpellings(native, culture) });
  switch (culture) {
    case 'ru': {
      const given = zipf(r, female ? RU_GIVEN_F : RU_GIVEN_M);
      const family = familyName(r, 'ru', female);
      const out = [w(given, 'given')];
      if (chance(r, 0.7)) out.push(w(ruPatronymic(zipf(r, RU_GIVEN_M), female), 'middle'));
      out.push(w(family, 'family'));
      return out;
    }
    case 'el': {
      const out = [w(zipf(r, female ? EL_GIVEN_F : EL_GIVEN_M), 'given')];
      if (chance(r, 0.3)) out.push(w(zipf(r, EL_GIVEN_M), 'middle'));
      out.push(w(familyName(r, 'el', female), 'family'));
      return out;
    }
    case 'ar': {
      const [given, gl] = zipf(r, female ? AR_GIVEN_F : AR_GIVEN_M);
      const [father, fl] = zipf(r, AR_GIVEN_M);
      const out = [w(given, 'given', gl)];
      // the father's name, and often the grandfather's, as Arabic names on sanctions lists are given
      if (chance(r, 0.75)) out.push(w(father, 'middle', fl));
      if (out.length > 1 && chance(r, 0.5)) out.push(((([a, l]) => w(a, 'middle', l))(zipf(r, AR_GIVEN_M))));
      // a family name of the list above, or a nisba made of a given name (الأحمدي, Al-Ahmadi)
      const kind = r();
      const [fam, famL] =
        kind < 0.35 ? zipf(r, AR_FAMILY) : kind < 0.55 ? ((([a, l]) => [`${a}ي`, l.map((x) => `${x.replace(/[aeiy]$/, '')}i`)])(zipf(r, AR_GIVEN_M)) as [string, string[]]) : pick(r, arabicRootNames());
      out.push(w(`ال${fam}`, 'family', AR_ARTICLE.flatMap((art) => famL.map((l) => art + l))));
      return out;
    }
    default: {
      const pool = LATIN[culture];
      const out = [w(zipf(r, female ? pool.f : pool.m), 'given')];
      if (chance(r, 0.25)) out.push(w(zipf(r, female ? pool.f : pool.m), 'middle'));
      const family = () => familyName(r, culture, female);
      out.push(w(family(), 'family'));
      // two family names, as Spanish names have
      if (culture === 'es' && chance(r, 0.6)) out.push(w(family(), 'family'));
      return out;
    }
  }
}

const join = (ws: readonly string[]) => ws.join(' ');
/** The name in its own script, or in Latin by spelling `system` (each word its `system`-th spelling, else its first). */
const nativeName = (words: readonly Word[]) => join(words.map((w) => w.native));
const latinName = (words: readonly Word[], system: number) => join(words.map((w) => w.latin[Math.min(system, w.latin.length - 1)]!));

function dateOf(r: Rng, from: number, to: number): string {
  const y = from + Math.floor(r() * (to - from + 1));
  const m = 1 + Math.floor(r() * 12);
  const d = 1 + Math.floor(r() * 28);
  return `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Entity `index` of the list of `seed`: always the same person. */
export function person(seed: number, index: number): GeneratedPerson {
  const r = random((Math.imul(seed, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0);
  const culture = cultureOf(r);
  const female = chance(r, 0.3);
  const words = wordsOf(r, culture, female);
  // Russian and Greek lists often write the family name first
  const familyFirst = (culture === 'ru' || culture === 'el') && chance(r, 0.3);
  const ordered = familyFirst ? [words.at(-1)!, ...words.slice(0, -1)] : words;
  const names: string[] = [];
  const s = system(r);
  if (nativeScript(culture)) {
    const native = chance(r, 0.6);
    names.push(native ? nativeName(ordered) : latinName(ordered, s));
    if (chance(r, 0.5)) names.push(native ? latinName(ordered, s) : nativeName(ordered));
    if (chance(r, 0.2)) names.push(latinName(ordered, (s + 1) % 3));
  } else {
    names.push(nativeName(ordered));
    if (chance(r, 0.2)) names.push(latinName(ordered, 1));
  }
  const dob = dateOf(r, 1940, 2002);
  const precision = r();
  const nationality = pick(r, NATIONALITIES[culture]);
  return {
    index,
    id: `gen-${index.toString(36).padStart(5, '0')}`,
    culture,
    words,
    familyFirst,
    dob,
    nationality,
    names: [...new Set(names)],
    listedDob: precision < 0.7 ? dob : precision < 0.85 ? dob.slice(0, 4) : null,
    listedNationality: chance(r, 0.85) ? nationality : null,
  };
}

/** The person as an OpenSanctions FollowTheMoney entity, one line of `entities.ftm.json`. */
export function ftmLine(p: GeneratedPerson): string {
  const properties: Record<string, string[]> = { name: [p.names[0]!] };
  if (p.names.length > 1) properties.alias = p.names.slice(1);
  if (p.listedDob) properties.birthDate = [p.listedDob];
  if (p.listedNationality) properties.nationality = [p.listedNationality.toLowerCase()];
  return JSON.stringify({ id: p.id, schema: 'Person', caption: p.names[0], properties, target: true, datasets: ['bench'], last_change: '2026-11-01T00:00:00' });
}

/** The list's file: entities `0 … n-1` of `seed`, as FollowTheMoney JSON lines, in chunks of about 1 MB. */
export function* ftmFile(seed: number, n: number): Generator<string> {
  let chunk = '';
  for (let i = 0; i < n; i++) {
    chunk += `${ftmLine(person(seed, i))}\n`;
    if (chunk.length >= 1 << 20) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

// ---- queries

export const VARIANT_KINDS = ['typo', 'transliteration', 'swap', 'initials'] as const;
export const CONTROL_KINDS = ['namesake', 'other'] as const;
export type QueryKind = (typeof VARIANT_KINDS)[number] | (typeof CONTROL_KINDS)[number];

/** A person screened: a variant of listed entity `entity_id`, or a control (`entity_id` null) who is not listed. */
export interface Query {
  kind: QueryKind;
  entity_id: string | null;
  name: string;
  dateOfBirth: string | null;
  nationality: string | null;
}

/**
 * Where the name proper begins in a word: after an article written into it (`Al-Mansouri`, `El-Masri`, `المنصوري`), so
 * that its first letter is the name's, not the article's.
 */
export function nameStart(word: string): number {
  return /^(al|el)-/i.test(word) ? 3 : word.startsWith('ال') ? 2 : 0;
}

/**
 * One edit in one word whose name proper has at least four letters: a letter dropped, doubled, swapped with the next,
 * or replaced; never the name's first letter (a name's first letter is its most reliable), nor an article's.
 */
export function typo(r: Rng, name: string): string {
  const words = name.split(' ');
  const long = words.map((w, i) => [w, i] as const).filter(([w]) => [...w].length - nameStart(w) >= 4);
  if (long.length === 0) return name;
  const [w, i] = pick(r, long);
  const cs = [...w];
  const start = nameStart(w);
  const at = start + 1 + Math.floor(r() * (cs.length - start - 1));
  const kind = Math.floor(r() * 4);
  if (kind === 0) cs.splice(at, 1);
  else if (kind === 1) cs.splice(at, 0, cs[at]!);
  else if (kind === 2 && at < cs.length - 1) [cs[at], cs[at + 1]] = [cs[at + 1]!, cs[at]!];
  else cs[at] = pick(r, [...new Set(cs.slice(start + 1))].filter((c) => c !== cs[at]).concat(cs[at - 1]!));
  words[i] = cs.join('');
  return words.join(' ');
}

/** The name in a script or a spelling the list does not give: Latin for a name listed in its own script, and the reverse. */
function transliterated(r: Rng, p: GeneratedPerson): string | null {
  const listed = new Set(p.names);
  const options = nativeScript(p.culture)
    ? [nativeName(p.words), latinName(p.words, system(r))]
    : [latinName(p.words.map((w) => ({ ...w, latin: [asciiSpelling(w.native)] })), 0)];
  const fresh = options.filter((o) => !listed.has(o));
  return fresh.length > 0 ? pick(r, fresh) : null;
}

/** The same words with the family name moved to the other end, in the script (or spelling) of one of the listed names. */
function swapped(r: Rng, p: GeneratedPerson): string {
  const words = p.familyFirst ? [...p.words] : [p.words.at(-1)!, ...p.words.slice(0, -1)];
  const native = nativeName(p.familyFirst ? [p.words.at(-1)!, ...p.words.slice(0, -1)] : p.words);
  if (!nativeScript(p.culture) || p.names.includes(native) && chance(r, 0.5)) return nativeName(words);
  return latinName(words, system(r));
}

/** The first given name as its initial, the rest in full, in Latin letters (as a document's holder name may be written). */
function initials(r: Rng, p: GeneratedPerson): string {
  const s = system(r);
  return p.words.map((w, i) => (i === 0 ? `${w.latin[0]![0]}.` : w.latin[Math.min(s, w.latin.length - 1)]!)).join(' ');
}

/** A person's words in their own script, sorted: who the name is, whatever script, spelling or order writes it. */
const nativeWords = (p: GeneratedPerson) => p.words.map((w) => w.native.toLowerCase()).sort();

/** Every part of a sorted list of words (each word once or not at all), as keys: `a b c` → `a`, `b`, `a b`, …, `a b c`. */
function parts(words: readonly string[]): string[] {
  const out = new Set<string>();
  for (let m = 1; m < 1 << words.length; m++) out.add(words.filter((_, i) => m & (1 << i)).join(' '));
  return [...out];
}

const year = (d: string) => Number(d.slice(0, 4));

/** Each word of a person in its own script (lower case) with every spelling of it the list or a query may write (`typo` works on these). */
const spelt = (p: GeneratedPerson): Array<[string, string[]]> => p.words.map((w) => [w.native.toLowerCase(), [...new Set([w.native, ...w.latin].map((x) => x.toLowerCase()))]]);

/** The words of `a` all among those of `b` (each as often), both sorted. */
function within(a: readonly string[], b: readonly string[]): boolean {
  let j = 0;
  for (const w of a) {
    while (j < b.length && b[j]! < w) j++;
    if (j === b.length || b[j] !== w) return false;
    j++;
  }
  return true;
}

/** A control: its words in their own script (sorted) and as spelt, its date of birth; `exact`: no listed person of the same words at all. */
interface ControlWords {
  words: string[];
  spelt: Array<[string, string[]]>;
  dob: string;
  exact: boolean;
}

/**
 * Which of `controls` the list of `seed` of `n` entities cannot tell apart from a listed person who has no date of
 * birth or one within a year of the control's: one whose words are all the control's, or all among the control's (a
 * middle name left out); or one whose words are so once a word of theirs is misspelt as `typo` misspells (one edit,
 * never the first letter, in a word of four letters or more, in any of its spellings): such a control is what the
 * bench's own typo variant of that person may be. And, for `exact`, any listed person of the very same words. One
 * pass over the list.
 */
function untellable(seed: number, n: number, controls: readonly ControlWords[]): Set<number> {
  const byPart = new Map<string, number[]>();
  const byWhole = new Map<string, number[]>();
  const spellings = new NeighbourIndex();
  /** Each spelling of a control's word: the word (in its own script). */
  const bySpelling = new Map<string, Set<string>>();
  /** Each word of a control's: the controls of it. */
  const byWord = new Map<string, Set<number>>();
  /** A listed spelling: the controls' words one misspelling from it. */
  const near = new Map<string, string[]>();
  controls.forEach((c, i) => {
    for (const k of parts(c.words)) (byPart.get(k) ?? byPart.set(k, []).get(k)!).push(i);
    const whole = c.words.join(' ');
    (byWhole.get(whole) ?? byWhole.set(whole, []).get(whole)!).push(i);
    for (const [native, ss] of c.spelt) {
      (byWord.get(native) ?? byWord.set(native, new Set()).get(native)!).add(i);
      for (const s of ss) {
        spellings.add(s);
        (bySpelling.get(s) ?? bySpelling.set(s, new Set()).get(s)!).add(native);
      }
    }
  });
  const out = new Set<number>();
  const check = (i: number, listed: GeneratedPerson, same: boolean) => {
    const c = controls[i]!;
    if ((same && c.exact) || listed.listedDob === null || Math.abs(year(listed.listedDob) - year(c.dob)) <= 1) out.add(i);
  };
  for (let e = 0; e < n; e++) {
    const listed = person(seed, e);
    const words = nativeWords(listed);
    const whole = words.join(' ');
    // the listed words all among a control's
    for (const i of byPart.get(whole) ?? []) check(i, listed, controls[i]!.words.join(' ') === whole);
    // a control's words all among the listed ones
    if (words.length <= 8) for (const k of parts(words)) if (k !== whole) for (const i of byWhole.get(k) ?? []) check(i, listed, false);
    // the same, once a word of the listed person's is misspelt into a control's
    for (const [native, ss] of spelt(listed)) {
      const others = new Set<string>();
      for (const s of ss) {
        if ([...s].length - nameStart(s) < 4) continue;
        // (as `typo` misspells: the same name's first letter, and article)
        const head = nameStart(s) + 1;
        const found = near.get(s) ?? near.set(s, [...new Set(spellings.near(s).filter((m) => m.slice(0, head) === s.slice(0, head)).flatMap((m) => [...bySpelling.get(m)!]))]).get(s)!;
        for (const w of found) if (w !== native) others.add(w);
      }
      for (const other of others) {
        const misspelt = [...words];
        misspelt[misspelt.indexOf(native)] = other;
        misspelt.sort();
        for (const i of byWord.get(other)!) {
          const c = controls[i]!.words;
          if (!out.has(i) && (within(misspelt, c) || within(c, misspelt))) check(i, listed, false);
        }
      }
    }
  }
  return out;
}

/**
 * `perKind` queries of each kind over the list of `seed` of `n` entities. A variant carries the person's real date of
 * birth four times in five and the nationality every other time (a document gives both; a list's record does not
 * always). The controls are persons who are not listed, and whom the list can tell apart from every listed one
 * (docs/watchlist.md, "Measured"; `untellable`): a `namesake` is a listed person's name with a date of birth 2 to 30
 * years off; an `other` is a person of another seed whose words are no listed person's. Either is left out where a
 * listed person of the same words, or of some of them or more, has no date of birth or one within a year of the
 * control's: the list gives nothing to tell them apart, and a hit on it is a true namesake hit, not a false one.
 */
export function queries(seed: number, n: number, perKind: number): Query[] {
  const r = random((seed ^ 0x51ed27) >>> 0);
  const out: Query[] = [];
  const entity = () => person(seed, Math.floor(r() * n));
  const carried = (p: GeneratedPerson) => ({ dateOfBirth: chance(r, 0.8) ? p.dob : null, nationality: chance(r, 0.5) ? p.nationality : null });
  for (const kind of VARIANT_KINDS) {
    for (let i = 0; i < perKind; i++) {
      // a name with no other spelling (an English one) has no transliteration: another person is drawn
      for (;;) {
        const p = entity();
        const listedName = pick(r, p.names);
        const name =
          kind === 'typo' ? typo(r, listedName) : kind === 'transliteration' ? transliterated(r, p) : kind === 'swap' ? swapped(r, p) : initials(r, p);
        if (name === null || p.names.includes(name)) continue;
        out.push({ kind, entity_id: p.id, name, ...carried(p) });
        break;
      }
    }
  }
  // the controls are drawn first, then those the list cannot tell apart from a listed person are left out
  const pool = 4 * perKind;
  const candidates: Array<Query & ControlWords> = [];
  for (let i = 0; i < pool; i++) {
    let p = entity();
    while (p.listedDob === null) p = entity();
    const years = (2 + Math.floor(r() * 29)) * (chance(r, 0.5) ? -1 : 1);
    const dob = `${year(p.dob) + years}${p.dob.slice(4)}`;
    const nationality = chance(r, 0.5) ? p.nationality : null;
    candidates.push({ kind: 'namesake', entity_id: null, name: p.names[0]!, dateOfBirth: dob, nationality, words: nativeWords(p), spelt: spelt(p), dob, exact: false });
  }
  const others = random((seed ^ 0x07e45) >>> 0);
  for (let i = 0; i < pool; i++) {
    const p = person((seed + 1 + Math.floor(others() * 1e6)) >>> 0, i);
    const nationality = chance(r, 0.5) ? p.nationality : null;
    candidates.push({ kind: 'other', entity_id: null, name: p.names[0]!, dateOfBirth: p.dob, nationality, words: nativeWords(p), spelt: spelt(p), dob: p.dob, exact: true });
  }
  const left = untellable(seed, n, candidates);
  for (const kind of CONTROL_KINDS) {
    const kept = candidates.filter((c, i) => c.kind === kind && !left.has(i)).slice(0, perKind);
    if (kept.length < perKind) throw new Error(`only ${kept.length} ${kind} controls of ${pool} can be told apart from the list`);
    for (const { kind: k, entity_id, name, dateOfBirth, nationality } of kept) out.push({ kind: k, entity_id, name, dateOfBirth, nationality });
  }
  return out;
}
