/**
 * Sharpen routing without I/O: the family rule, tier filtering, rotation, slot filling with
 * fallback and distinct families for ultra2x, the routing note, and the no-reviewer error codes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SharpenTier } from "../config.ts";
import { ApiError } from "../errors.ts";
import { CALLER_PROVIDERS } from "./schema.ts";
import {
  eligibleReviewers,
  noReviewerError,
  type RoutableReviewer,
  reviewsFor,
  rotate,
  route,
  routingNote,
} from "./routing.ts";

const ALL: SharpenTier[] = ["sharpen", "plus", "ultra", "ultra2x"];

function r(family: string, model: string, tiers: SharpenTier[] = ALL): RoutableReviewer {
  return { family, model, tiers };
}

const A = r("family_a", "a1");
const B = r("family_b", "b1");
const B2 = r("family_b", "b2");
const C = r("family_c", "c1", ["sharpen", "ultra2x"]);

test("the reviewer's family is never the caller's, for every caller_provider; other gets every family", () => {
  const all = ["a", "b", "c", "d", "e", "f", "g"].map((x) => r(`family_${x}`, x));
  for (const caller of CALLER_PROVIDERS) {
    const families = eligibleReviewers(all, caller, "sharpen").map((x) => x.family);
    if (caller === "other") assert.equal(families.length, 7);
    else {
      assert.equal(families.length, 6, caller);
      assert.ok(!families.includes(caller), caller);
    }
  }
});

test("a reviewer serves only its declared tiers", () => {
  assert.deepEqual(eligibleReviewers([A, C], "other", "plus"), [A]);
  assert.deepEqual(eligibleReviewers([A, C], "other", "ultra2x"), [A, C]);
  assert.equal(reviewsFor("ultra2x"), 2);
  assert.equal(reviewsFor("ultra"), 1);
});

test("rotate shifts the start and wraps, for any offset", () => {
  assert.deepEqual(rotate([1, 2, 3], 0), [1, 2, 3]);
  assert.deepEqual(rotate([1, 2, 3], 1), [2, 3, 1]);
  assert.deepEqual(rotate([1, 2, 3], 5), [3, 1, 2]);
  assert.deepEqual(rotate([1, 2, 3], -1), [3, 1, 2]);
  assert.deepEqual(rotate([], 3), []);
});

const fail = (code: "provider_error" | "provider_timeout") => Promise.reject(new ApiError(code, code));

test("one slot: the first candidate answers; nothing else is tried", async () => {
  const tried: string[] = [];
  const out = await route([A, B], 1, async (x) => {
    tried.push(x.model);
    return `review by ${x.model}`;
  });
  assert.deepEqual(tried, ["a1"]);
  assert.deepEqual(out.answers, [{ reviewer: A, result: "review by a1" }]);
  assert.deepEqual(out.failures, []);
});

test("fallback: a failed reviewer gives way to the next; the note says so", async () => {
  const out = await route([A, B], 1, (x) => (x === A ? fail("provider_error") : Promise.resolve("ok")));
  assert.equal(out.answers[0]?.reviewer, B);
  assert.equal(out.failures[0]?.reviewer, A);
  const note = routingNote(out, 1, [A, B], "family_c", "sharpen");
  assert.match(note ?? "", /family_a \(a1\) failed \(provider_error\)/);
  assert.match(note ?? "", /answered by family_b \(b1\)/);
  assert.equal(
    routingNote({ answers: out.answers, failures: [] }, 1, [A, B], "family_c", "sharpen"),
    undefined,
  );
});

test("ultra2x: two slots never share a family, even when the same family comes first twice", async () => {
  const tried: string[] = [];
  const out = await route([B, B2, A], 2, async (x) => {
    tried.push(x.model);
    return x.model;
  });
  assert.deepEqual(
    out.answers.map((a) => a.reviewer.family),
    ["family_b", "family_a"],
  );
  assert.deepEqual(tried, ["b1", "a1"]);
});

test("ultra2x: a failing slot takes a same-family fallback only when that family is free", async () => {
  // b1 fails; b2 is free to take (a1 holds family_a), so the answer is still two families.
  const out = await route([B, A, B2], 2, (x) =>
    x === B ? fail("provider_error") : Promise.resolve(x.model),
  );
  assert.deepEqual(out.answers.map((a) => a.reviewer.model).sort(), ["a1", "b2"]);
});

test("ultra2x: one of two failing with no other family left is partial", async () => {
  const out = await route([A, B], 2, (x) => (x === B ? fail("provider_timeout") : Promise.resolve("ok")));
  assert.equal(out.answers.length, 1);
  const note = routingNote(out, 2, [A, B], "family_c", "ultra2x");
  assert.match(note ?? "", /family_b \(b1\) timed out/);
  assert.match(note ?? "", /Only 1 of 2 reviews/);
});

test("ultra2x with a single eligible family: one review and a note saying why", async () => {
  const out = await route([A], 2, async () => "ok");
  assert.equal(out.answers.length, 1);
  assert.match(
    routingNote(out, 2, [A], "family_b", "ultra2x") ?? "",
    /Only 1 reviewer family other than family_b/,
  );
});

test("stopped() prevents further attempts (the overall deadline)", async () => {
  let stop = false;
  const tried: string[] = [];
  const out = await route(
    [A, B],
    1,
    async (x) => {
      tried.push(x.model);
      stop = true;
      throw new ApiError("provider_timeout", "slow");
    },
    () => stop,
  );
  assert.deepEqual(tried, ["a1"]);
  assert.equal(out.answers.length, 0);
});

test("non-ApiError failures become provider_error", async () => {
  const out = await route([A], 1, async () => {
    throw new TypeError("bad shape");
  });
  assert.equal(out.failures[0]?.error.code, "provider_error");
});

test("no answer: always 503 sharpen_no_reviewer, retryable; the message says when the deadline was the cause", () => {
  const timeout = new ApiError("provider_timeout", "t");
  const error = new ApiError("provider_error", "e");
  const allTimedOut = noReviewerError([
    { reviewer: A, error: timeout },
    { reviewer: B, error: timeout },
  ]);
  assert.equal(allTimedOut.code, "sharpen_no_reviewer");
  assert.equal(allTimedOut.status, 503);
  assert.equal(allTimedOut.retryable, true);
  assert.match(allTimedOut.message, /^No reviewer answered before the Sharpen deadline/);
  assert.match(allTimedOut.hint ?? "", /Nothing was charged/);
  const mixed = noReviewerError([
    { reviewer: A, error: timeout },
    { reviewer: B, error },
  ]);
  assert.equal(mixed.code, "sharpen_no_reviewer");
  assert.match(mixed.message, /timed out; .* failed \(provider_error\)/);
  assert.doesNotMatch(mixed.message, /deadline/);
  const none = noReviewerError([]);
  assert.equal(none.code, "sharpen_no_reviewer");
  assert.equal(none.status, 503);
  assert.equal(none.message, "No reviewer answered.");
});
