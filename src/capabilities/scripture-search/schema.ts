/**
 * scripture.search's request schema and record keys (spec 4.6), and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { num, text } from "../framework/fields.ts";

export const SCRIPTURE_TEXTS = ["bible", "quran"] as const;

export const scriptureSearchSchema = Type.Object(
  {
    text: Type.Unsafe<(typeof SCRIPTURE_TEXTS)[number]>({
      type: "string",
      enum: [...SCRIPTURE_TEXTS],
      description:
        "Which scripture: `bible` (bible-api.com; full-text over the public-domain KJV) or `quran` (quran.com).",
    }),
    query: Type.Optional(
      text(
        1,
        300,
        "A phrase to find (its words in order, case and punctuation ignored for the Bible). With `reference`, searched within that passage.",
      ),
    ),
    reference: Type.Optional(
      text(
        1,
        60,
        'A passage. Bible: "Book chapter[:verse[-verse]]" by name or common abbreviation, e.g. "John 3:16", "Ps 23", "1 Cor 13:4-7". ' +
          'Quran: "chapter:verse" or "chapter", e.g. "2:255" or "112".',
      ),
    ),
    translation: Type.Optional(
      text(
        1,
        20,
        "Bible: a bible-api.com translation code (kjv, web, asv, bbe, darby, dra, ylt, oeb-us, oeb-cw, webbe, clementine, almeida, rccv, " +
          "cherokee, cuv, bkr), default KJV. Quran: a quran.com numeric translation id, default 131 (Dr. Mustafa Khattab, The Clear Quran).",
      ),
    ),
    num: num(25, 10, "Verses per page."),
  },
  { additionalProperties: false },
);

export type ScriptureQuery = Static<typeof scriptureSearchSchema>;

/** Record keys of spec 4.6: `text`, `book`, `chapter`, `verse`, `translation` always; `arabic` (quran) when present. */
export const scriptureRecordKeys = Type.Object({
  text: Type.String({ description: "The verse in the translation (HTML and footnote markers removed)." }),
  book: Type.String({ description: "Bible book name (e.g. John) or surah name (e.g. Al-Fatihah)." }),
  chapter: Type.Integer({ minimum: 1, description: "Chapter, or surah number." }),
  verse: Type.Integer({ minimum: 1 }),
  translation: Type.String({
    description:
      "The translation the text is from: bible-api.com code (kjv, web…) or quran.com translation id (131…).",
  }),
  arabic: Type.Optional(
    Type.String({ description: "Quran only: the verse in Uthmani script, when the source gives it." }),
  ),
});
