/**
 * wger mapper and index tests: the recorded exerciseinfo detail as an indexed exercise (English
 * translation only, HTML stripped, licence and author), the bounded multi-page load, local
 * matching and ranking, and the record with its stored detail.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeContext, fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import { type ExerciseIndex, exercisePage, loadExerciseIndex, MAX_RESULTS, searchExercises, toExerciseRecord } from "./exercise-index.ts";
import { attributionOf, toExerciseInfoRequest, toIndexedExercise, wgerExercise, wgerExerciseInfoList, wgerProbe } from "./wger.ts";

const detail = () => checkShape("wger", wgerExercise, fixture("wger", "exerciseinfo_detail.json"));
const list = () => checkShape("wger", wgerExerciseInfoList, fixture("wger", "exerciseinfo_list_en.json"));
const isDrift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^wger answered in a shape/.test(e.message);

test("request: one page of exerciseinfo, English exercises, limit and offset", () => {
  assert.deepEqual(toExerciseInfoRequest(200, 100), {
    provider: "wger",
    method: "GET",
    path: "/api/v2/exerciseinfo/",
    query: { language__code: "en", limit: 100, offset: 200 },
    response: wgerExerciseInfoList,
  });
  assert.deepEqual(wgerProbe.request, toExerciseInfoRequest(0, 1));
});

test("the recorded exercise: the English translation's name, plain-text description, aliases, comments and author", () => {
  const ex = toIndexedExercise(detail());
  assert.ok(ex, "ex");
  assert.equal(ex.id, 9);
  assert.equal(ex.name, "2 Handed Kettlebell Swing");
  assert.deepEqual(ex.aliases, ["double handed kettlebell", "Kettlebell russian style"]);
  assert.ok(ex.description.startsWith("Two Handed Russian Style Kettlebell swing\nPizza (Italian: [ˈpittsa]"), ex.description.slice(0, 80));
  assert.doesNotMatch(ex.description, /<|&nbsp;/);
  assert.equal(ex.category, "Abs");
  assert.deepEqual(ex.equipment, ["Kettlebell"]);
  assert.deepEqual(ex.muscles, [{ name: "Biceps femoris", name_en: "Biceps" }, { name: "Brachialis" }, { name: "Obliquus externus abdominis" }]);
  assert.deepEqual(ex.secondary_muscles, [{ name: "Anterior deltoid", name_en: "Shoulders" }, { name: "Trapezius" }]);
  assert.equal(ex.author, "deusinvictus");
  assert.deepEqual(ex.author_history, ["deusinvictus", "Foo Bar"]);
  assert.deepEqual(ex.licence, {
    name: "Creative Commons Attribution Share Alike 4",
    short_name: "CC-BY-SA 4",
    url: "https://creativecommons.org/licenses/by-sa/4.0/deed.en",
  });
  assert.deepEqual(ex.comments, ["it's important to do the exercise correctly", "put a lot of effort into this exercise", "have fun"]);
  assert.equal(ex.images.length, 4);
  assert.equal(attributionOf(ex), '"2 Handed Kettlebell Swing" by deusinvictus, from wger (https://wger.de), licensed under CC-BY-SA 4');
});

test("not indexed: no English translation, no licence or one without a name", () => {
  const base = detail();
  assert.equal(toIndexedExercise({ ...base, translations: base.translations.filter((t) => t.language !== 2) }), null);
  assert.equal(toIndexedExercise({ ...base, license: null }), null);
  assert.equal(toIndexedExercise({ ...base, license: { url: "https://x" } }), null);
});

test("drift: no results, an exercise without id or translations, a retyped language or a renamed name, naming wger", () => {
  const base = fixture("wger", "exerciseinfo_detail.json") as { translations: Record<string, unknown>[] };
  const page = (results: unknown[]) => ({ count: results.length, next: null, previous: null, results });
  assert.throws(() => checkShape("wger", wgerExerciseInfoList, { detail: "Not found." }), isDrift("/next"));
  assert.throws(() => checkShape("wger", wgerExerciseInfoList, { count: 0, next: null }), isDrift("/results"));
  assert.throws(() => checkShape("wger", wgerExerciseInfoList, page([{ ...base, id: "nine" }])), isDrift("/results/0/id"));
  const { translations, ...bare } = base;
  assert.ok(translations.length > 0, "translations.length > 0");
  assert.throws(() => checkShape("wger", wgerExerciseInfoList, page([bare])), isDrift("/results/0/translations"));
  const [first, ...rest] = translations;
  assert.throws(() => checkShape("wger", wgerExerciseInfoList, page([{ ...base, translations: [{ ...first, language: "en" }, ...rest] }])), isDrift("/results/0/translations/0/language"));
  const { name, ...nameless } = first!;
  assert.ok(name, "name");
  assert.throws(() => checkShape("wger", wgerExerciseInfoList, page([{ ...base, translations: [nameless, ...rest] }])), isDrift("/results/0/translations/0/name"));
  // The recordings fit.
  assert.equal(list().results.length, 12);
});

/** A wger of `total` copies of the recorded exercise (ids 1..total), answering limit/offset pages. */
function wgerOf(total: number, withCount = true) {
  const base = detail();
  return (r: UpstreamRequest) => {
    const offset = Number(r.query?.offset);
    const limit = Number(r.query?.limit);
    const results = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => ({ ...base, id: offset + i + 1 }));
    return { ...(withCount ? { count: total } : {}), next: offset + limit < total ? "next" : null, previous: null, results };
  };
}

test("load: the first page, then the others its count calls for, a few at a time, within the page bound", async () => {
  const { ctx, requests } = fakeContext(wgerOf(45));
  const index = await loadExerciseIndex(ctx.upstream, ctx.signal, { pageSize: 10, maxPages: 10, concurrency: 2 });
  assert.deepEqual(requests.map((r) => r.query?.offset), [0, 10, 20, 30, 40]);
  assert.equal(index.exercises.length, 45);
  assert.equal(index.partial, false);
  assert.equal(index.reported, 45);

  const bounded = fakeContext(wgerOf(45));
  const part = await loadExerciseIndex(bounded.ctx.upstream, bounded.ctx.signal, { pageSize: 10, maxPages: 3, concurrency: 2 });
  assert.equal(bounded.requests.length, 3);
  assert.equal(part.exercises.length, 30);
  assert.equal(part.partial, true);

  const noCount = fakeContext(wgerOf(25, false));
  const followed = await loadExerciseIndex(noCount.ctx.upstream, noCount.ctx.signal, { pageSize: 10, maxPages: 10, concurrency: 2 });
  assert.deepEqual(noCount.requests.map((r) => r.query?.offset), [0, 10, 20]);
  assert.equal(followed.exercises.length, 25);
});

test("load: one failing page fails the load", async () => {
  const ok = wgerOf(30);
  const { ctx } = fakeContext((r: UpstreamRequest) => {
    if (r.query?.offset === 20) throw new ApiError("provider_error", "wger answered HTTP 503.");
    return ok(r);
  });
  await assert.rejects(
    loadExerciseIndex(ctx.upstream, ctx.signal, { pageSize: 10, maxPages: 10, concurrency: 2 }),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error",
  );
});

async function fixtureIndex(): Promise<ExerciseIndex> {
  const { ctx } = fakeContext(list());
  return loadExerciseIndex(ctx.upstream, ctx.signal);
}

const names = (index: ExerciseIndex, c: Parameters<typeof searchExercises>[1]) => searchExercises(index, c).map((e) => e.name);

test("search: query words in names first, then in instructions; case-insensitive", async () => {
  const index = await fixtureIndex();
  assert.equal(index.exercises.length, 12);
  assert.deepEqual(names(index, { query: "SQUAT" }), ["Barbell Back Squat", "Kettlebell Goblet Squat"]);
  assert.deepEqual(names(index, { query: "press bench" }), ["Barbell Bench Press", "Dumbbell Shoulder Press"], "name, then name and instructions");
  assert.deepEqual(names(index, { query: "russian style" }), ["2 Handed Kettlebell Swing"], "an alias");
  // "floor" appears only in instructions.
  assert.deepEqual(names(index, { query: "floor" }), ["Barbell Back Squat", "Barbell Bench Press", "Crunches", "Push-Up", "Walking Lunge"]);
  assert.deepEqual(names(index, { query: "nothing like this" }), []);
});

test("search: equipment and muscles (anatomical or English name, primary before secondary), combined", async () => {
  const index = await fixtureIndex();
  assert.deepEqual(names(index, { equipment: "bodyweight" }), ["Plank", "Push-Up"]);
  assert.deepEqual(names(index, { equipment: "MAT" }), ["Crunches", "Plank"]);
  assert.deepEqual(names(index, { muscle: "glutes" }), ["Barbell Back Squat", "Kettlebell Goblet Squat", "Romanian Deadlift", "Walking Lunge"]);
  assert.deepEqual(names(index, { muscle: "quadriceps" }), ["Barbell Back Squat", "Kettlebell Goblet Squat", "Walking Lunge"]);
  assert.deepEqual(names(index, { muscle: "biceps" })[0], "2 Handed Kettlebell Swing");
  assert.deepEqual(names(index, { muscle: "glutes", equipment: "barbell" }), ["Barbell Back Squat", "Romanian Deadlift"]);
  assert.deepEqual(names(index, { query: "squat", equipment: "kettlebell" }), ["Kettlebell Goblet Squat"]);
  assert.equal(names(index, {}).length, 12, "no criterion lists the index");
  assert.equal(names(index, {})[0], "2 Handed Kettlebell Swing", "alphabetical");
});

test("records: spec keys, attribution and licence always, author when present; stored detail with links", async () => {
  const index = await fixtureIndex();
  const swing = toExerciseRecord(index.exercises.find((e) => e.id === 9)!);
  assert.deepEqual(Object.keys(swing.summary), ["title", "url", "snippet", "equipment", "muscles", "secondary_muscles", "author", "attribution", "licence"]);
  assert.equal(swing.summary.url, "https://wger.de/en/exercise/9/view-base");
  assert.deepEqual(swing.summary.muscles, ["Biceps femoris", "Brachialis", "Obliquus externus abdominis"]);
  assert.equal(swing.detail?.general_information !== undefined, true);
  assert.equal(swing.detail?.attribution, swing.summary.attribution);
  assert.deepEqual(swing.links?.map((l) => l.label), ["Exercise on wger", "Licence (CC-BY-SA 4)"]);
  const plank = toExerciseRecord(index.exercises.find((e) => e.id === 75)!);
  assert.equal("author" in plank.summary, false);
  assert.equal(plank.summary.attribution, '"Plank", from wger (https://wger.de), licensed under CC-BY-SA 3');
  const crunches = toExerciseRecord(index.exercises.find((e) => e.id === 130)!);
  assert.equal("secondary_muscles" in crunches.summary, false, "no secondary muscles listed");
});

test("page: the whole result set, capped, with notes on what the bounds left out", async () => {
  const index = await fixtureIndex();
  const page = exercisePage(index, { muscle: "glutes" });
  assert.equal(page.records.length, 4);
  assert.equal(page.next, null);
  assert.equal(page.notes, undefined);
  const many: ExerciseIndex = { exercises: Array.from({ length: MAX_RESULTS + 5 }, (_, i) => ({ ...index.exercises[0]!, id: i + 1 })), partial: true, reported: 5000 };
  const capped = exercisePage(many, {});
  assert.equal(capped.records.length, MAX_RESULTS);
  assert.match(capped.notes![0]!, /105 exercises matched; the first 100 are listed/);
  assert.match(capped.notes![1]!, /of wger's 5000/);
});
