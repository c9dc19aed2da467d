/**
 * scripture.search's cross-field rules (spec 4.6), in the framework's vocabulary: `query` or
 * `reference`; the reference parses for the chosen `text` and names a known book (or surah and
 * verse); the translation is a bible-api.com code (Bible) or a numeric quran.com id (Quran); and a
 * whole-Bible `query` searches the shipped KJV, so it takes no other translation. Each violation
 * points at a field the caller sent: in an `update` that changed only `text`, at `/params/text`.
 */
import type { Violation } from "../../errors.ts";
import { atLeastOne, custom, notBlank, type Rule, type RuleInput, sentPointer } from "../framework/rules.ts";
import { BIBLE_TRANSLATIONS, DEFAULT_BIBLE_TRANSLATION } from "./books.ts";
import { parseBibleReference, parseQuranReference } from "./references.ts";

function violation(input: RuleInput, message: string, field: string, ...others: string[]): Violation[] {
  const { path, stored } = sentPointer(input, field, ...others);
  return [{ path, message: stored ? `${field} (from the search): ${message}` : message }];
}

const BIBLE_CODES = Object.keys(BIBLE_TRANSLATIONS);

const reference = custom(
  "`reference` must parse for the chosen `text`: a Bible book (name or common abbreviation) with chapter[:verse[-verse]], or a Quran chapter[:verse] within the surah.",
  (input) => {
    const { text, reference: ref } = input.query;
    if (typeof ref !== "string" || (text !== "bible" && text !== "quran")) return [];
    const parsed = text === "bible" ? parseBibleReference(ref) : parseQuranReference(ref);
    return parsed.ok ? [] : violation(input, parsed.message, "reference", "text");
  },
);

const translation = custom(
  "`translation` must be a bible-api.com translation code for the Bible, or a numeric quran.com translation id for the Quran.",
  (input) => {
    const { text, translation: t } = input.query;
    if (typeof t !== "string") return [];
    if (text === "bible" && !(t.toLowerCase() in BIBLE_TRANSLATIONS)) {
      return violation(
        input,
        `unknown Bible translation ${JSON.stringify(t)}; bible-api.com offers ${BIBLE_CODES.join(", ")}`,
        "translation",
        "text",
      );
    }
    if (text === "quran" && !/^[0-9]{1,6}$/.test(t)) {
      return violation(
        input,
        `a Quran translation is a quran.com numeric translation id, e.g. "131" (The Clear Quran, the default) or "20" (Saheeh International); ${JSON.stringify(t)} is not one`,
        "translation",
        "text",
      );
    }
    return [];
  },
);

const kjvQuery = custom(
  "A Bible `query` without `reference` searches the public-domain KJV shipped with Quarry, so it takes no other `translation`.",
  (input) => {
    const { text, query, reference: ref, translation: t } = input.query;
    if (text !== "bible" || typeof query !== "string" || ref !== undefined || typeof t !== "string")
      return [];
    if (t.toLowerCase() === DEFAULT_BIBLE_TRANSLATION || !(t.toLowerCase() in BIBLE_TRANSLATIONS)) return [];
    return violation(
      input,
      `a full-text query over the whole Bible searches the public-domain King James Version shipped with Quarry (bible-api.com has no search): ` +
        `leave translation out (or "kjv"), or add a reference to search that passage in ${JSON.stringify(t)}`,
      "translation",
      "query",
      "reference",
      "text",
    );
  },
);

export const scriptureRules: readonly Rule[] = [
  atLeastOne(
    ["query", "reference"],
    "Provide `query` (a phrase to find) or `reference` (a passage), or both.",
  ),
  notBlank("query"),
  reference,
  translation,
  kjvQuery,
];
