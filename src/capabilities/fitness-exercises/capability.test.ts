/**
 * fitness.exercises capability tests: declaration, schema bounds (each criterion 1-120, not blank;
 * num 1-20), and the search glue: the index loaded once through the context and searched locally,
 * a first load that fails (nothing kept) and a request whose deadline passes while it loads. End
 * to end over HTTP: test/fitness-exercises.e2e.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeContext, fixture, violationsOf } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import type { JsonObject } from "../types.ts";
import { type FitnessExercisesQuery, fitnessExercises } from "./capability.ts";

function q(body: JsonObject): FitnessExercisesQuery {
  const copy = structuredClone(body);
  assert.deepEqual(violationsOf(fitnessExercises, copy), [], JSON.stringify(body));
  return copy as FitnessExercisesQuery;
}

test("declaration follows spec 4.6", () => {
  assert.equal(fitnessExercises.id, "fitness.exercises");
  assert.equal(fitnessExercises.paging, "local");
  assert.equal(fitnessExercises.deadlineMs, 15_000);
  assert.equal(fitnessExercises.typicalCredits, 0);
  assert.equal(fitnessExercises.offersUpdate, true);
  assert.equal(fitnessExercises.updateRule, undefined, "the default merge");
  assert.deepEqual(fitnessExercises.ruleTexts, [], "the spec gives no cross-field rule");
  assert.deepEqual(
    Object.values(fitnessExercises.actions).map((a) => [a.name, a.mode, a.credits]),
    [["details", "stored", 0]],
  );
  assert.deepEqual((fitnessExercises.recordKeys as { required?: string[] }).required, ["attribution", "licence"]);
  assert.equal(fitnessExercises.pageSize(q({ num: 7 })), 7);
});

test("schema: defaults, bounds, not blank; an empty body is accepted (it lists the index)", () => {
  const empty: JsonObject = {};
  assert.deepEqual(violationsOf(fitnessExercises, empty), []);
  assert.deepEqual(empty, { num: 10 });
  q({ query: "x".repeat(120), equipment: "y", muscle: "z", num: 20 });
  q({ muscle: "a", num: 1 });
  for (const field of ["query", "equipment", "muscle"]) {
    for (const bad of ["", "x".repeat(121), "   ", "\u200b\u00a0"]) {
      const violations = violationsOf(fitnessExercises, { [field]: bad });
      assert.ok(violations.some((v) => v.path === `/${field}`), `${field}=${JSON.stringify(bad)}: ${JSON.stringify(violations)}`);
    }
  }
  for (const num of [0, 21, 2.5]) assert.equal(violationsOf(fitnessExercises, { num })[0]?.path, "/num");
  assert.equal(violationsOf(fitnessExercises, { name: "x" }).length, 1);
});

test("examples are valid bodies", () => {
  for (const example of fitnessExercises.examples) q(example.body as JsonObject);
});

test("search: the index is loaded once through the context, then every search is local", async () => {
  const { ctx, requests } = fakeContext(fixture("wger", "exerciseinfo_list_en.json"));
  const first = await fitnessExercises.search(ctx, q({ query: "squat" }), null);
  assert.deepEqual(first.records.map((r) => r.summary.title), ["Barbell Back Squat", "Kettlebell Goblet Squat"]);
  assert.equal(first.next, null);
  assert.equal(first.credits, 0);
  assert.deepEqual(requests.map((r) => [r.path, r.query?.offset, r.query?.limit]), [["/api/v2/exerciseinfo/", 0, 100]]);
  const second = await fitnessExercises.search(ctx, q({ equipment: "kettlebell" }), null);
  assert.equal(second.records.length, 2);
  assert.equal(requests.length, 1, "no provider call once loaded");
});

test("search: a failing first load is a provider error and nothing is kept; the next search loads", async () => {
  const { ctx, requests } = fakeContext([new ApiError("provider_error", "wger answered HTTP 503."), fixture("wger", "exerciseinfo_list_en.json")]);
  await assert.rejects(fitnessExercises.search(ctx, q({}), null), (e: unknown) => e instanceof ApiError && e.code === "provider_error");
  const page = await fitnessExercises.search(ctx, q({}), null);
  assert.equal(page.records.length, 12);
  assert.equal(requests.length, 2);
});

test("search: a request whose deadline passes while the index loads is a provider timeout", async () => {
  const controller = new AbortController();
  const { ctx } = fakeContext(() => new Promise(() => {}), { signal: controller.signal });
  const pending = fitnessExercises.search(ctx, q({}), null);
  controller.abort();
  await assert.rejects(pending, (e: unknown) => e instanceof ApiError && e.code === "provider_timeout");
});
