import assert from "node:assert/strict";
import { test } from "node:test";
import { closestName, didYouMean, editDistance } from "./suggest.ts";

const RECIPES = ["query", "ingredient", "category", "cuisine", "num"];

test("edit distance counts substitutions, insertions, deletions and adjacent swaps as one edit each", () => {
  assert.equal(editDistance("query", "query", 2), 0);
  assert.equal(editDistance("qurey", "query", 2), 1);
  assert.equal(editDistance("quer", "query", 2), 1);
  assert.equal(editDistance("querys", "query", 2), 1);
  assert.equal(editDistance("qxery", "query", 2), 1);
  assert.equal(editDistance("kitten", "sitting", 5), 3);
  // Past the limit it stops early and says limit + 1.
  assert.equal(editDistance("kitten", "sitting", 2), 3);
  assert.equal(editDistance("a", "abcdef", 2), 3);
});

test("typos, case and separators, and the names agents use for a field are matched", () => {
  assert.equal(closestName("qurey", RECIPES), "query");
  assert.equal(closestName("Query", RECIPES), "query");
  assert.equal(closestName("ingredients", RECIPES), "ingredient");
  assert.equal(closestName("cusine", RECIPES), "cuisine");
  assert.equal(closestName("limit", RECIPES), "num");
  assert.equal(closestName("max_results", RECIPES), "num");
  assert.equal(closestName("q", RECIPES), "query");
  assert.equal(closestName("fromYear", ["query", "from_year", "to_year"]), "from_year");
  assert.equal(closestName("ticker", ["symbol", "window", "language"]), "symbol");
  assert.equal(closestName("1y", ["1D", "5D", "1M", "6M", "YTD", "1Y", "5Y", "MAX"]), "1Y");
  assert.equal(closestName("detail", ["details"]), "details");
  // Actions by the names agents give them.
  assert.equal(closestName("next", ["more", "update"]), "more");
  assert.equal(closestName("next_page", ["more", "update"]), "more");
  assert.equal(closestName("get", ["details"]), "details");
  // An action alias is no field name: `page` sent as a field of an execute body suggests nothing.
  assert.equal(closestName("page", RECIPES), undefined);
  assert.equal(closestName("page", ["search_id", "record_id", "action", "params"]), undefined);
});

test("nothing is suggested without a clear match", () => {
  // Too far from every name.
  assert.equal(closestName("colour", RECIPES), undefined);
  assert.equal(closestName("zz", RECIPES), undefined);
  // An alias whose field this schema does not have.
  assert.equal(closestName("ticker", RECIPES), undefined);
  // Two names equally close: no guess between them.
  assert.equal(closestName("abd", ["abc", "abe"]), undefined);
  assert.equal(closestName("Ab", ["ab", "AB"]), undefined);
  // Nothing to choose from, or nothing sent.
  assert.equal(closestName("query", []), undefined);
  assert.equal(closestName("", RECIPES), undefined);
  // Names inherited from Object.prototype are not aliases.
  assert.equal(closestName("constructor", RECIPES), undefined);
  assert.equal(closestName("__proto__", RECIPES), undefined);
});

test("didYouMean words the suggestion, and says nothing for an exact or unmatched name", () => {
  assert.equal(didYouMean("qurey", RECIPES), ' (did you mean "query"?)');
  assert.equal(didYouMean("query", RECIPES), "");
  assert.equal(didYouMean("colour", RECIPES), "");
});
