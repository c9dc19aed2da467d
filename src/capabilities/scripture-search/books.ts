/**
 * Static reference data scripture.search validates against before any request: the 66 books of the
 * Protestant canon (bible-api.com's book ids and names, KJV chapter counts, common abbreviations),
 * bible-api.com's documented translation codes, and the 114 surahs (quran.com `name_simple` and
 * verse counts). Pure data, no I/O.
 */

export interface BibleBook {
  /** bible-api.com's book id (USFM), used by its `/data/{translation}/{book_id}/{chapter}` endpoint. */
  id: string;
  /** The book's name as bible-api.com's English answers give it (`book_name`). */
  name: string;
  chapters: number;
  /** Other spellings and abbreviations, matched without case, spaces or dots. */
  aliases: readonly string[];
}

/** [id, name, chapters, aliases]; canonical order (index + 1 is the book's number in the KJV index). */
const BOOK_ROWS: readonly (readonly [string, string, number, readonly string[]])[] = [
  ["GEN", "Genesis", 50, ["gen", "ge", "gn"]],
  ["EXO", "Exodus", 40, ["exod", "exo", "ex"]],
  ["LEV", "Leviticus", 27, ["lev", "le", "lv"]],
  ["NUM", "Numbers", 36, ["num", "nu", "nm", "nb"]],
  ["DEU", "Deuteronomy", 34, ["deut", "deu", "de", "dt"]],
  ["JOS", "Joshua", 24, ["josh", "jos", "jsh"]],
  ["JDG", "Judges", 21, ["judg", "jdg", "jg", "jdgs"]],
  ["RUT", "Ruth", 4, ["rth", "ru", "rut"]],
  ["1SA", "1 Samuel", 31, ["1sam", "1sa", "1sm", "1s", "1samuel"]],
  ["2SA", "2 Samuel", 24, ["2sam", "2sa", "2sm", "2s", "2samuel"]],
  ["1KI", "1 Kings", 22, ["1kgs", "1ki", "1kg", "1k", "1kings"]],
  ["2KI", "2 Kings", 25, ["2kgs", "2ki", "2kg", "2k", "2kings"]],
  ["1CH", "1 Chronicles", 29, ["1chron", "1chr", "1ch", "1chronicles"]],
  ["2CH", "2 Chronicles", 36, ["2chron", "2chr", "2ch", "2chronicles"]],
  ["EZR", "Ezra", 10, ["ezr", "ez"]],
  ["NEH", "Nehemiah", 13, ["neh", "ne"]],
  ["EST", "Esther", 10, ["esth", "est", "es"]],
  ["JOB", "Job", 42, ["jb"]],
  ["PSA", "Psalms", 150, ["psalm", "ps", "psa", "pss", "psm", "pslm"]],
  ["PRO", "Proverbs", 31, ["prov", "pro", "prv", "pr"]],
  ["ECC", "Ecclesiastes", 12, ["eccles", "eccl", "ecc", "ec", "qoheleth"]],
  ["SNG", "Song of Solomon", 8, ["song", "songofsongs", "sos", "so", "canticles", "cant", "sng", "ss"]],
  ["ISA", "Isaiah", 66, ["isa", "is"]],
  ["JER", "Jeremiah", 52, ["jer", "je", "jr"]],
  ["LAM", "Lamentations", 5, ["lam", "la"]],
  ["EZK", "Ezekiel", 48, ["ezek", "eze", "ezk"]],
  ["DAN", "Daniel", 12, ["dan", "da", "dn"]],
  ["HOS", "Hosea", 14, ["hos", "ho"]],
  ["JOL", "Joel", 3, ["joe", "jl", "jol"]],
  ["AMO", "Amos", 9, ["am", "amo"]],
  ["OBA", "Obadiah", 1, ["obad", "oba", "ob"]],
  ["JON", "Jonah", 4, ["jnh", "jon"]],
  ["MIC", "Micah", 7, ["mic", "mc"]],
  ["NAM", "Nahum", 3, ["nah", "na", "nam"]],
  ["HAB", "Habakkuk", 3, ["hab", "hb"]],
  ["ZEP", "Zephaniah", 3, ["zeph", "zep", "zp"]],
  ["HAG", "Haggai", 2, ["hag", "hg"]],
  ["ZEC", "Zechariah", 14, ["zech", "zec", "zc"]],
  ["MAL", "Malachi", 4, ["mal", "ml"]],
  ["MAT", "Matthew", 28, ["matt", "mat", "mt"]],
  ["MRK", "Mark", 16, ["mrk", "mar", "mk", "mr"]],
  ["LUK", "Luke", 24, ["luk", "lk"]],
  ["JHN", "John", 21, ["jhn", "jn", "joh"]],
  ["ACT", "Acts", 28, ["act", "ac", "actsoftheapostles"]],
  ["ROM", "Romans", 16, ["rom", "ro", "rm"]],
  ["1CO", "1 Corinthians", 16, ["1cor", "1co", "1corinthians"]],
  ["2CO", "2 Corinthians", 13, ["2cor", "2co", "2corinthians"]],
  ["GAL", "Galatians", 6, ["gal", "ga"]],
  ["EPH", "Ephesians", 6, ["eph", "ephes"]],
  ["PHP", "Philippians", 4, ["phil", "php", "pp"]],
  ["COL", "Colossians", 4, ["col", "co"]],
  ["1TH", "1 Thessalonians", 5, ["1thess", "1thes", "1th", "1thessalonians"]],
  ["2TH", "2 Thessalonians", 3, ["2thess", "2thes", "2th", "2thessalonians"]],
  ["1TI", "1 Timothy", 6, ["1tim", "1ti", "1timothy"]],
  ["2TI", "2 Timothy", 4, ["2tim", "2ti", "2timothy"]],
  ["TIT", "Titus", 3, ["tit", "ti"]],
  ["PHM", "Philemon", 1, ["philem", "phm", "pm"]],
  ["HEB", "Hebrews", 13, ["heb"]],
  ["JAS", "James", 5, ["jas", "jm"]],
  ["1PE", "1 Peter", 5, ["1pet", "1pe", "1pt", "1p", "1peter"]],
  ["2PE", "2 Peter", 3, ["2pet", "2pe", "2pt", "2p", "2peter"]],
  ["1JN", "1 John", 5, ["1jn", "1jo", "1joh", "1jhn", "1john"]],
  ["2JN", "2 John", 1, ["2jn", "2jo", "2joh", "2jhn", "2john"]],
  ["3JN", "3 John", 1, ["3jn", "3jo", "3joh", "3jhn", "3john"]],
  ["JUD", "Jude", 1, ["jud", "jd"]],
  ["REV", "Revelation", 22, ["rev", "re", "rv", "revelations", "apocalypse"]],
];

export const BIBLE_BOOKS: readonly BibleBook[] = BOOK_ROWS.map(([id, name, chapters, aliases]) => ({
  id,
  name,
  chapters,
  aliases,
}));

/** A book name as typed → its comparable form: lower case, no dots, spaces or apostrophes; I/II/III and First/Second/Third → 1/2/3. */
export function bookKey(text: string): string {
  const t = text.toLowerCase().replace(/[.']/g, " ").replace(/\s+/g, " ").trim();
  const numbered = t
    .replace(/^(iii|third|3rd)\s+/, "3 ")
    .replace(/^(ii|second|2nd)\s+/, "2 ")
    .replace(/^(i|first|1st)\s+/, "1 ");
  return numbered.replace(/\s/g, "");
}

const BY_KEY: ReadonlyMap<string, BibleBook> = (() => {
  const map = new Map<string, BibleBook>();
  for (const book of BIBLE_BOOKS) {
    for (const key of [bookKey(book.name), book.id.toLowerCase(), ...book.aliases]) {
      if (map.has(key) && map.get(key) !== book) throw new Error(`book alias ${key} is ambiguous`);
      map.set(key, book);
    }
  }
  return map;
})();

/** The book a typed name or abbreviation stands for, or undefined. */
export function findBook(text: string): BibleBook | undefined {
  return BY_KEY.get(bookKey(text));
}

/** The book's 1-based number in canonical order (the KJV index's book column). */
export function bookNumber(book: BibleBook): number {
  return BIBLE_BOOKS.indexOf(book) + 1;
}

/**
 * bible-api.com's translation codes, as its home page documents them (https://bible-api.com/), with
 * their names. The code is sent lower case as `translation=`; anything else is refused before a
 * request (bible-api answers 404 "translation not found").
 */
export const BIBLE_TRANSLATIONS: Readonly<Record<string, string>> = {
  cherokee: "Cherokee New Testament",
  cuv: "Chinese Union Version",
  bkr: "Bible kralická",
  asv: "American Standard Version (1901)",
  bbe: "Bible in Basic English",
  darby: "Darby Bible",
  dra: "Douay-Rheims 1899 American Edition",
  kjv: "King James Version",
  web: "World English Bible",
  ylt: "Young's Literal Translation (NT only)",
  "oeb-cw": "Open English Bible, Commonwealth Edition",
  webbe: "World English Bible, British Edition",
  "oeb-us": "Open English Bible, US Edition",
  clementine: "Clementine Latin Vulgate",
  almeida: "João Ferreira de Almeida",
  rccv: "Protestant Romanian Corrected Cornilescu Version",
};

/** The Bible translation when none is given (spec 4.6). */
export const DEFAULT_BIBLE_TRANSLATION = "kjv";
/** The Quran translation when none is given: 131, Dr. Mustafa Khattab, The Clear Quran (spec 4.6). */
export const DEFAULT_QURAN_TRANSLATION = "131";

/** [name_simple, verses] of surahs 1-114 (quran.com `/chapters`). */
const SURAH_ROWS: readonly (readonly [string, number])[] = [
  ["Al-Fatihah", 7],
  ["Al-Baqarah", 286],
  ["Ali 'Imran", 200],
  ["An-Nisa", 176],
  ["Al-Ma'idah", 120],
  ["Al-An'am", 165],
  ["Al-A'raf", 206],
  ["Al-Anfal", 75],
  ["At-Tawbah", 129],
  ["Yunus", 109],
  ["Hud", 123],
  ["Yusuf", 111],
  ["Ar-Ra'd", 43],
  ["Ibrahim", 52],
  ["Al-Hijr", 99],
  ["An-Nahl", 128],
  ["Al-Isra", 111],
  ["Al-Kahf", 110],
  ["Maryam", 98],
  ["Taha", 135],
  ["Al-Anbya", 112],
  ["Al-Hajj", 78],
  ["Al-Mu'minun", 118],
  ["An-Nur", 64],
  ["Al-Furqan", 77],
  ["Ash-Shu'ara", 227],
  ["An-Naml", 93],
  ["Al-Qasas", 88],
  ["Al-'Ankabut", 69],
  ["Ar-Rum", 60],
  ["Luqman", 34],
  ["As-Sajdah", 30],
  ["Al-Ahzab", 73],
  ["Saba", 54],
  ["Fatir", 45],
  ["Ya-Sin", 83],
  ["As-Saffat", 182],
  ["Sad", 88],
  ["Az-Zumar", 75],
  ["Ghafir", 85],
  ["Fussilat", 54],
  ["Ash-Shuraa", 53],
  ["Az-Zukhruf", 89],
  ["Ad-Dukhan", 59],
  ["Al-Jathiyah", 37],
  ["Al-Ahqaf", 35],
  ["Muhammad", 38],
  ["Al-Fath", 29],
  ["Al-Hujurat", 18],
  ["Qaf", 45],
  ["Adh-Dhariyat", 60],
  ["At-Tur", 49],
  ["An-Najm", 62],
  ["Al-Qamar", 55],
  ["Ar-Rahman", 78],
  ["Al-Waqi'ah", 96],
  ["Al-Hadid", 29],
  ["Al-Mujadila", 22],
  ["Al-Hashr", 24],
  ["Al-Mumtahanah", 13],
  ["As-Saf", 14],
  ["Al-Jumu'ah", 11],
  ["Al-Munafiqun", 11],
  ["At-Taghabun", 18],
  ["At-Talaq", 12],
  ["At-Tahrim", 12],
  ["Al-Mulk", 30],
  ["Al-Qalam", 52],
  ["Al-Haqqah", 52],
  ["Al-Ma'arij", 44],
  ["Nuh", 28],
  ["Al-Jinn", 28],
  ["Al-Muzzammil", 20],
  ["Al-Muddaththir", 56],
  ["Al-Qiyamah", 40],
  ["Al-Insan", 31],
  ["Al-Mursalat", 50],
  ["An-Naba", 40],
  ["An-Nazi'at", 46],
  ["'Abasa", 42],
  ["At-Takwir", 29],
  ["Al-Infitar", 19],
  ["Al-Mutaffifin", 36],
  ["Al-Inshiqaq", 25],
  ["Al-Buruj", 22],
  ["At-Tariq", 17],
  ["Al-A'la", 19],
  ["Al-Ghashiyah", 26],
  ["Al-Fajr", 30],
  ["Al-Balad", 20],
  ["Ash-Shams", 15],
  ["Al-Layl", 21],
  ["Ad-Duhaa", 11],
  ["Ash-Sharh", 8],
  ["At-Tin", 8],
  ["Al-'Alaq", 19],
  ["Al-Qadr", 5],
  ["Al-Bayyinah", 8],
  ["Az-Zalzalah", 8],
  ["Al-'Adiyat", 11],
  ["Al-Qari'ah", 11],
  ["At-Takathur", 8],
  ["Al-'Asr", 3],
  ["Al-Humazah", 9],
  ["Al-Fil", 5],
  ["Quraysh", 4],
  ["Al-Ma'un", 7],
  ["Al-Kawthar", 3],
  ["Al-Kafirun", 6],
  ["An-Nasr", 3],
  ["Al-Masad", 5],
  ["Al-Ikhlas", 4],
  ["Al-Falaq", 5],
  ["An-Nas", 6],
];

export interface Surah {
  number: number;
  name: string;
  verses: number;
}

export const SURAHS: readonly Surah[] = SURAH_ROWS.map(([name, verses], i) => ({
  number: i + 1,
  name,
  verses,
}));

/** Surah `n` (1-114), or undefined. */
export function surah(n: number): Surah | undefined {
  return Number.isInteger(n) ? SURAHS[n - 1] : undefined;
}
