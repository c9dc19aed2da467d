/**
 * fitness.exercises end to end over HTTP against the replay upstream: a first index load that
 * fails (502, nothing cached, the next call loads), execute and local searching, each field's
 * bounds (also through update, under /params), local paging (`more` free, no provider call),
 * update (default merge), stored details, and the daily refresh (in the background, the old index
 * served meanwhile and kept when the refresh fails). The wger list is a documented example built
 * around the one recorded exercise (fixtures/providers/wger/index.json).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { INDEX_NAME, INDEX_REFRESH_MS } from "../src/capabilities/fitness-exercises/capability.ts";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;
before(async () => {
  kit = await startCapabilityKit("fitness.exercises");
});
after(async () => {
  await kit.close();
});

const wgerCalls = (from: number) => kit.h.replay.requests.slice(from).filter((r) => r.prefix === "wger");
const titles = (res: { body: { results: { title: string }[] } }) => res.body.results.map((r) => r.title);

describe("fitness.exercises", () => {
  // First: nothing is loaded yet in this harness.
  test("a first load that fails is 502 provider_error, charges nothing and caches nothing; the next call loads", async () => {
    kit.h.replay.setFault("wger", { kind: "status", status: 503 });
    const from = kit.h.replay.requests.length;
    try {
      const res = await kit.execute({ query: "squat" });
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "provider_error");
      assert.equal(await kit.used(), 0);
    } finally {
      kit.h.replay.setFault("wger", null);
    }
    const ok = await kit.execute({ query: "squat" });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.deepEqual(titles(ok), ["Barbell Back Squat", "Kettlebell Goblet Squat"]);
    const loaded = wgerCalls(from).filter((r) => r.matched !== null);
    assert.equal(loaded.length, 1);
    assert.equal(loaded[0]?.path, "/wger/api/v2/exerciseinfo/");
    assert.deepEqual(loaded[0]?.query, { language__code: "en", limit: "100", offset: "0" });
  });

  test("execute: records with their spec keys, attribution and licence always, free; the index is not asked again", async () => {
    const from = kit.h.replay.requests.length;
    const res = await kit.execute({ equipment: "kettlebell" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.charged_credits, 0);
    assert.deepEqual(res.body.next.actions, ["more", "update"]);
    assert.equal(res.body.has_more, false);
    assert.deepEqual(res.body.record_actions, ["details"]);
    assert.deepEqual(titles(res), ["2 Handed Kettlebell Swing", "Kettlebell Goblet Squat"]);
    const swing = res.body.results[0];
    assert.deepEqual(swing, {
      record_id: swing.record_id,
      title: "2 Handed Kettlebell Swing",
      url: "https://wger.de/en/exercise/9/view-base",
      snippet: swing.snippet,
      equipment: ["Kettlebell"],
      muscles: ["Biceps femoris", "Brachialis", "Obliquus externus abdominis"],
      secondary_muscles: ["Anterior deltoid", "Trapezius"],
      author: "deusinvictus",
      attribution: '"2 Handed Kettlebell Swing" by deusinvictus, from wger (https://wger.de), licensed under CC-BY-SA 4',
      licence: {
        name: "Creative Commons Attribution Share Alike 4",
        short_name: "CC-BY-SA 4",
        url: "https://creativecommons.org/licenses/by-sa/4.0/deed.en",
      },
    });
    assert.match(swing.snippet, /^Two Handed Russian Style Kettlebell swing/);
    assert.equal(wgerCalls(from).length, 0, "answered from the cached index");
  });

  test("searching: muscles by English or anatomical name, criteria combined, none lists the index", async () => {
    assert.deepEqual(titles(await kit.execute({ muscle: "Glutes", equipment: "barbell" })), ["Barbell Back Squat", "Romanian Deadlift"]);
    assert.deepEqual(titles(await kit.execute({ muscle: "pectoralis" })), ["Barbell Bench Press", "Push-Up"]);
    const none = await kit.execute({ query: "handstand" });
    assert.equal(none.status, 200);
    assert.deepEqual(none.body.results, []);
    const all = await kit.execute({});
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.equal(all.body.result_count, 10);
    assert.equal(all.body.has_more, true);
  });

  test("paging is local: more serves the rest from the session, free, without a provider call", async () => {
    const ex = await kit.execute({ num: 5 });
    const from = kit.h.replay.requests.length;
    const pages = [titles(ex)];
    let last = ex;
    while (last.body.has_more) {
      last = await kit.more(ex.body.search_id);
      assert.equal(last.status, 200, JSON.stringify(last.body));
      assert.equal(last.body.charged_credits, 0);
      pages.push(titles(last));
    }
    assert.deepEqual(pages.map((p) => p.length), [5, 5, 2]);
    assert.equal(new Set(pages.flat()).size, 12, "each exercise once");
    assert.equal(kit.h.replay.requests.length, from);
  });

  test("bounds, blank values and unknown fields are refused at their pointers", async () => {
    for (const field of ["query", "equipment", "muscle"]) {
      await kit.expectViolation({ [field]: "" }, `/${field}`);
      await kit.expectViolation({ [field]: "x".repeat(121) }, `/${field}`);
      await kit.expectViolation({ [field]: " \t " }, `/${field}`, /blank/);
    }
    await kit.expectViolation({ num: 0 }, "/num");
    await kit.expectViolation({ num: 21 }, "/num");
    await kit.expectViolation({ name: "squat" }, "/name");
    const ok = await kit.execute({ query: "x".repeat(120), num: 20 });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  test("update: the default merge (null removes a field), same search_id, free, violations under /params", async () => {
    const ex = await kit.execute({ query: "squat" });
    const id = ex.body.search_id;
    const narrowed = await kit.update(id, { equipment: "barbell" });
    assert.equal(narrowed.status, 200, JSON.stringify(narrowed.body));
    assert.equal(narrowed.body.search_id, id);
    assert.equal(narrowed.body.charged_credits, 0);
    assert.deepEqual(titles(narrowed), ["Barbell Back Squat"]);
    const widened = await kit.update(id, { query: null });
    assert.deepEqual(titles(widened), ["Barbell Back Squat", "Barbell Bench Press", "Romanian Deadlift"]);
    await kit.expectUpdateViolation(id, { muscle: "" }, "/params/muscle");
    await kit.expectUpdateViolation(id, { equipment: "  " }, "/params/equipment", /blank/);
    await kit.expectUpdateViolation(id, { num: 21 }, "/params/num");
    await kit.expectUpdateViolation(id, { limit: 5 }, "/params/limit");
  });

  test("details: the stored instructions with attribution and licence, free, no provider call", async () => {
    const ex = await kit.execute({ query: "plank" });
    const from = kit.h.replay.requests.length;
    const res = await kit.action(ex.body.results[0].record_id, "details");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.cached, true);
    assert.equal(res.body.charged_credits, 0);
    const detail = res.body.detail;
    assert.equal(detail.title, "Plank");
    assert.match(detail.instructions, /^Rest on your forearms and toes/);
    assert.equal(detail.attribution, '"Plank", from wger (https://wger.de), licensed under CC-BY-SA 3');
    assert.equal(detail.licence.short_name, "CC-BY-SA 3");
    assert.equal("author" in detail, false);
    assert.match(detail.general_information, /General information only/);
    assert.deepEqual(res.body.links, [
      { label: "Exercise on wger", url: "https://wger.de/en/exercise/75/view-base" },
      { label: "Licence (CC-BY-SA 3)", url: "https://creativecommons.org/licenses/by-sa/3.0/deed.en" },
    ]);
    const again = await kit.action(ex.body.results[0].record_id, "details");
    assert.deepEqual(again.body.detail, detail);
    assert.equal(kit.h.replay.requests.length, from);
  });

  // The background reload runs on the process's indexes; the test waits for it to finish there
  // (`settled`), never for a wall-clock time: the replay logs a request when it arrives, before the
  // reload has read and installed the answer, and a second search sent in between would find the
  // first reload still running and start none of its own.
  test("refresh: after a day the next search is served from the current index while it reloads; a failed reload keeps it", async () => {
    const indexes = kit.h.services.indexes;
    const firstLoad = indexes.loadedAt(INDEX_NAME);
    assert.notEqual(firstLoad, undefined);
    kit.h.clock.advance(INDEX_REFRESH_MS + 1000);
    let from = kit.h.replay.requests.length;
    const stale = await kit.execute({ query: "squat" });
    assert.equal(stale.status, 200, JSON.stringify(stale.body));
    assert.equal(stale.body.results.length, 2);
    await indexes.settled(INDEX_NAME);
    assert.deepEqual(wgerCalls(from).map((r) => r.matched), ["wger/exerciseinfo_list_en"], "one background reload");
    const reloadedAt = indexes.loadedAt(INDEX_NAME);
    assert.equal(reloadedAt, kit.h.clock.now(), "the reload replaced the index");

    kit.h.clock.advance(INDEX_REFRESH_MS + 1000);
    kit.h.replay.setFault("wger", { kind: "status", status: 503 });
    try {
      from = kit.h.replay.requests.length;
      const kept = await kit.execute({ query: "squat" });
      assert.equal(kept.status, 200, JSON.stringify(kept.body));
      assert.equal(kept.body.results.length, 2);
      // The reload retries and fails in the background; the index it would replace keeps answering.
      await indexes.settled(INDEX_NAME);
      assert.equal(wgerCalls(from).length, 1 + kit.h.config.upstream.maxRetries, "the failed reload's attempts");
      assert.equal(indexes.loadedAt(INDEX_NAME), reloadedAt, "the failed reload kept the index");
      from = kit.h.replay.requests.length;
      const still = await kit.execute({ equipment: "kettlebell" });
      assert.equal(still.status, 200, JSON.stringify(still.body));
      assert.equal(still.body.results.length, 2);
      await indexes.settled(INDEX_NAME);
      assert.equal(wgerCalls(from).length, 0, "a failed reload is not tried again by the very next search");
    } finally {
      kit.h.replay.setFault("wger", null);
    }
  });
});
