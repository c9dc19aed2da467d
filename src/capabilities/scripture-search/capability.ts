/**
 * scripture.search (spec 4.6): Bible and Quran verses by reference or phrase. The request field
 * `text` picks the variant: `bible` (bible-api.com for references, always sending `translation`, KJV
 * by default and paced to its 15 requests per 30 s; full-text `query` over the public-domain KJV
 * shipped with Quarry, since bible-api.com has no search; a KJV reference is checked against it
 * before any request) or `quran` (the keyless quran.com API v4, or the Quran Foundation's Content and
 * Search APIs when QURAN_CLIENT_ID and QURAN_CLIENT_SECRET are set; translation 131 by default,
 * `arabic` when present). Offset paging; free; `details` is the whole surrounding chapter, fetched
 * once and cached (free). Neither variant needs a key.
 */
import { free } from "../framework/costs.ts";
import { defineCapability } from "../framework/define.ts";
import { bibleChapter, bibleSource, kjvFallbackSource } from "./bible-source.ts";
import { quranChapter, quranSource } from "./quran-source.ts";
import { scriptureRules } from "./rules.ts";
import { scriptureRecordKeys, scriptureSearchSchema } from "./schema.ts";
import { DAY } from "../framework/durations.ts";

export { scriptureSearchSchema } from "./schema.ts";

export const scriptureSearch = defineCapability({
  id: "scripture.search",
  title: "Scripture search",
  summary: "Bible and Quran verses by reference (John 3:16, 2:255) or by phrase, in a chosen translation.",
  description:
    "Looks up verses by `reference` or finds them by a `query` phrase. `text: bible`: references through bible-api.com " +
    "in any of its translations (`translation`, default KJV); a phrase is searched in the public-domain King James " +
    "Version shipped with Quarry (bible-api.com has no search), so a whole-Bible `query` takes no other translation; " +
    "with a `reference` too, the phrase is searched within that passage, in the passage's translation. `text: quran`: " +
    "quran.com, translation 131 (Dr. Mustafa Khattab, The Clear Quran) by default or any numeric quran.com " +
    "translation id; references are `chapter:verse` or `chapter`; records carry the Arabic (`arabic`, Uthmani " +
    "script) when quran.com gives it. Each record is one verse: `text`, `book`, `chapter`, `verse`, `translation`. " +
    "An unparseable reference, an unknown book or an unknown Bible translation is refused with a violation before " +
    "any request, and so is a KJV verse the KJV does not have (other translations number some verses differently: " +
    "their verses are checked by bible-api.com). A Quran translation quran.com returns no text of is refused at " +
    "`translation` (131, the default, was withdrawn from its API in 2025 at its copyright holder's request; `20`, " +
    "Saheeh International, is an alternative). When bible-api.com fails, a KJV reference is answered from the " +
    "shipped KJV (`notes[]` says so). " +
    "`details` returns the whole surrounding chapter (free, cached after the first call).",
  topic: "research and reading",
  schema: scriptureSearchSchema,
  sourceChecked: ["reference"],
  recordKeys: scriptureRecordKeys,
  paging: "offset",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: DAY,
  cost: free(
    "Free: bible-api.com, quran.com and the shipped KJV text cost nothing; searches and details cost 0 credits.",
  ),
  rules: scriptureRules,
  variants: {
    field: "text",
    options: {
      bible: { sources: [bibleSource, kjvFallbackSource], actions: { details: { run: bibleChapter } } },
      quran: { sources: [quranSource], actions: { details: { run: quranChapter } } },
    },
  },
  update: { example: { title: "The same phrase, only within John 15", params: { reference: "John 15" } } },
  actions: {
    details: {
      description:
        "The whole chapter (or surah) around the verse, every verse with its text (and the Arabic for the Quran when " +
        "quran.com gives it). Free; fetched on the first call, then cached. KJV records read the shipped KJV text.",
      mode: "fetched",
    },
  },
  // The first example's answer has more pages, its first record's details come from the shipped KJV,
  // and the update example narrows it: all answered offline. The others are answered by recordings.
  examples: [
    {
      title: "Bible verses (KJV) that say “love one another”",
      body: { text: "bible", query: "love one another", num: 5 },
    },
    {
      title: "John 3:16 in the World English Bible",
      body: { text: "bible", reference: "John 3:16", translation: "web" },
    },
    { title: "The first verse of the Quran (The Clear Quran)", body: { text: "quran", reference: "1:1" } },
    { title: "Quran verses about mercy", body: { text: "quran", query: "mercy" } },
  ],
});
