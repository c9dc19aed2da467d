/**
 * POST /v1/sharpen end to end over real HTTP, reviewers served by the loopback model simulator:
 * the family rule for every caller_provider, each wire format, the blind attempt without the
 * draft, ultra2x, fallback, partial, no reviewer, and timeouts. Entitlement, limits and billing
 * are in sharpen-entitlement.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { loadConfig } from "../src/config.ts";
import { createSharpenHandler } from "../src/sharpen/handler.ts";
import { CALLER_PROVIDERS } from "../src/sharpen/schema.ts";
import { HttpUpstreamClient } from "../src/upstream/client.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import {
  type ModelSimulator,
  type SimulatedRequest,
  startModelSimulator,
} from "../src/demo/model-simulator.ts";

const TIERS = ["sharpen", "plus", "ultra", "ultra2x"];
const PLANS = JSON.stringify([
  {
    id: "pro",
    credits: 100_000,
    period: "monthly",
    rateLimitPerMinute: 10_000,
    sharpenTier: "ultra2x",
    sharpenDefaultStage: "stage1",
  },
]);
const CREDITS = { sharpen: 3, plus: 7, ultra: 11, ultra2x: 13 };

function reviewers(url: string) {
  return [
    {
      family: "family_a",
      kind: "openai",
      model: "sim-a",
      baseUrl: `${url}/v1`,
      keyVar: "SIM_KEY",
      tiers: TIERS,
    },
    { family: "family_b", kind: "anthropic", model: "sim-b", baseUrl: url, keyVar: "SIM_KEY", tiers: TIERS },
    { family: "family_c", kind: "gemini", model: "sim-c", baseUrl: url, keyVar: "SIM_KEY", tiers: TIERS },
    {
      family: "family_d",
      kind: "openai",
      model: "sim-d",
      baseUrl: `${url}/v1`,
      keyVar: "SIM_KEY",
      tiers: TIERS,
    },
    // Declared but its key variable is unset: never eligible, never called.
    {
      family: "family_e",
      kind: "anthropic",
      model: "sim-e-nokey",
      baseUrl: url,
      keyVar: "UNSET_KEY",
      tiers: TIERS,
    },
  ];
}

function env(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    QUARRY_PLANS: PLANS,
    SHARPEN_REVIEWERS: JSON.stringify(reviewers(url)),
    SIM_KEY: "sim-secret",
    SHARPEN_TIER_CREDITS: JSON.stringify(CREDITS),
    ...extra,
  };
}

let sim: ModelSimulator;
let rotating: Harness;
let priority: Harness;
let client: HttpUpstreamClient;

before(async () => {
  sim = await startModelSimulator();
  // Default wiring: the handler opens its own upstream client, candidates rotate.
  rotating = await startHarness({ env: env(sim.url), sharpen: (services) => createSharpenHandler(services) });
  // Fixed order and short deadlines; breakers that never open, so failures in one test cannot
  // turn into fast "paused" failures in the next.
  client = new HttpUpstreamClient(loadConfig({}), undefined, { threshold: 10_000, halfOpenAfterMs: 1000 });
  priority = await startHarness({
    replay: rotating.replay,
    env: env(sim.url, {
      SHARPEN_ORDER: "priority",
      SHARPEN_DEADLINE_MS: "1500",
      SHARPEN_REVIEWER_DEADLINE_MS: "500",
    }),
    sharpen: (services) => createSharpenHandler(services, { upstream: client }),
  });
});

after(async () => {
  await priority?.close();
  await rotating?.close();
  await client?.close();
  await sim?.close();
});

beforeEach(() => sim.reset());

let n = 0;
function body(callerProvider: string, extra: Record<string, unknown> = {}) {
  n++;
  return {
    task: `TASK-${n}: list three risks of the plan`,
    context: `CONTEXT-${n}`,
    approach: `APPROACH-${n}`,
    draft: `DRAFT-SECRET-${n} the plan has no risks`,
    caller_provider: callerProvider,
    ...extra,
  };
}

async function sharpen(h: Harness, key: string, payload: unknown) {
  return h.call("POST", "/v1/sharpen", { key, body: payload });
}

const requestsOf = (model: string): SimulatedRequest[] => sim.requests.filter((r) => r.model === model);

test("family rule for every caller_provider: never the caller's family; every other family is reachable", async () => {
  const { key } = await rotating.account("pro");
  const families = ["family_a", "family_b", "family_c", "family_d"];
  for (const caller of CALLER_PROVIDERS) {
    const expected = families.filter((f) => f !== caller);
    const seen = new Set<string>();
    // Rotation moves the first candidate by one per request: len(expected) calls reach each once.
    for (let i = 0; i < expected.length; i++) {
      const res = await sharpen(rotating, key, body(caller));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.reviews.length, 1);
      const family = res.body.reviews[0].reviewer.family;
      assert.notEqual(family, caller, `caller ${caller} got its own family`);
      seen.add(family);
    }
    assert.deepEqual([...seen].sort(), expected, `caller ${caller}`);
  }
  assert.equal(requestsOf("sim-e-nokey").length, 0, "a reviewer without its key is never called");
});

test("each wire format is spoken with its real shape, and the review comes back labelled", async () => {
  const { key } = await rotating.account("pro");
  const models = new Map<string, string>();
  for (let i = 0; i < 4; i++) {
    const res = await sharpen(rotating, key, body("other"));
    assert.equal(res.status, 200, res.text);
    const [review] = res.body.reviews;
    models.set(review.reviewer.family, review.reviewer.model);
    assert.ok(
      review.review.startsWith(`[simulated reviewer ${review.reviewer.model}] Critique`),
      review.review,
    );
  }
  assert.deepEqual(Object.fromEntries(models), {
    family_a: "sim-a",
    family_b: "sim-b",
    family_c: "sim-c",
    family_d: "sim-d",
  });

  const [openai] = requestsOf("sim-a");
  assert.equal(openai?.path, "/v1/chat/completions");
  assert.equal(openai?.keyHeader, "authorization");
  const oBody = openai?.body as { model: string; messages: { role: string }[] };
  assert.equal(oBody.model, "sim-a");
  assert.deepEqual(
    oBody.messages.map((m) => m.role),
    ["system", "user"],
  );

  const [anthropic] = requestsOf("sim-b");
  assert.equal(anthropic?.path, "/v1/messages");
  assert.equal(anthropic?.keyHeader, "x-api-key");
  assert.equal(anthropic?.headers["anthropic-version"], "2023-06-01");
  const aBody = anthropic?.body as {
    model: string;
    system: string;
    max_tokens: number;
    messages: { role: string }[];
  };
  assert.equal(aBody.model, "sim-b");
  assert.equal(typeof aBody.system, "string");
  assert.ok(aBody.max_tokens > 0, "aBody.max_tokens > 0");
  assert.deepEqual(
    aBody.messages.map((m) => m.role),
    ["user"],
  );

  const [gemini] = requestsOf("sim-c");
  assert.equal(gemini?.path, "/v1beta/models/sim-c:generateContent");
  assert.equal(gemini?.keyHeader, "x-goog-api-key");
  const gBody = gemini?.body as {
    systemInstruction: { parts: unknown[] };
    contents: { parts: { text: string }[] }[];
  };
  assert.equal(gBody.systemInstruction.parts.length, 1);
  assert.ok(gBody.contents[0]?.parts[0]?.text.includes("<task>"), "gBody.contents[0]?.parts[0]?.text.includes(\"<task>\")");

  // Keys never reach the recorded headers (the simulator strips them) nor any body.
  assert.ok(!JSON.stringify(sim.requests.map((r) => [r.headers, r.body])).includes("sim-secret"), "!JSON.stringify(sim.requests.map((r) => [r.headers, r.body])).includes(\"sim-secret\")");
});

test("the blind attempt never contains the draft; the critique has the draft and the blind attempt", async () => {
  const { key } = await rotating.account("pro");
  for (const caller of ["family_a", "other"]) {
    sim.reset();
    const payload = body(caller, { stage: "stage3+" });
    const res = await sharpen(rotating, key, payload);
    assert.equal(res.status, 200, res.text);
    for (const { reviewer } of res.body.reviews) {
      const [blind, critique, ...rest] = requestsOf(reviewer.model);
      assert.equal(rest.length, 0, "two calls per reviewer");
      assert.equal(blind?.step, "blind");
      assert.ok(
        blind?.text.includes(payload.task) &&
          blind.text.includes(payload.context) &&
          blind.text.includes(payload.approach), "blind?.text.includes(payload.task) && blind.text.includes(payload.context) && blind.tex...",
      );
      assert.ok(!JSON.stringify(blind?.body).includes(payload.draft), "draft leaked into the blind attempt");
      assert.ok(JSON.stringify(critique?.body).includes(payload.draft), "the critique must carry the draft");
      assert.ok(
        critique?.text.includes(`[simulated reviewer ${reviewer.model}] Blind attempt`),
        "critique carries the attempt",
      );
    }
  }
});

test("ultra2x: two reviews from two families, neither the caller's", async () => {
  const { key } = await rotating.account("pro");
  for (const caller of CALLER_PROVIDERS) {
    const res = await sharpen(rotating, key, body(caller, { stage: "stage3+" }));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.tier, "ultra2x");
    assert.equal(res.body.partial, false);
    const families = res.body.reviews.map((r: { reviewer: { family: string } }) => r.reviewer.family);
    assert.equal(families.length, 2);
    assert.notEqual(families[0], families[1]);
    assert.ok(!families.includes(caller), caller);
    assert.match(res.body.instruction, /two reviewers/);
    assert.equal(res.body.charged_credits, CREDITS.ultra2x);
  }
});

test("fallback: a failing reviewer gives way to the next eligible one, said in routing_note", async () => {
  const { key } = await priority.account("pro");
  sim.setBehaviour("sim-b", "fail");
  const res = await sharpen(priority, key, body("family_a"));
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.reviews[0].reviewer, { family: "family_c", model: "sim-c" });
  assert.equal(res.body.partial, false);
  assert.match(res.body.routing_note, /family_b \(sim-b\) failed \(provider_error\)/);
  assert.match(res.body.routing_note, /answered by family_c \(sim-c\)/);
  assert.equal(res.body.charged_credits, CREDITS.sharpen);
  // An empty answer is a failure too, not an empty review.
  sim.setBehaviour("sim-c", "empty");
  const again = await sharpen(priority, key, body("family_a"));
  assert.equal(again.status, 200, again.text);
  assert.equal(again.body.reviews[0].reviewer.family, "family_d");
  assert.match(again.body.routing_note, /family_c \(sim-c\) failed/);
});

test("ultra2x with one reviewer failing and no family left: partial with the other's review, half charge", async () => {
  const { key } = await priority.account("pro");
  sim.setBehaviour("sim-c", "fail");
  sim.setBehaviour("sim-d", "fail");
  const res = await sharpen(priority, key, body("family_a", { stage: "stage3+" }));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.partial, true);
  assert.equal(res.body.reviews.length, 1);
  assert.equal(res.body.reviews[0].reviewer.family, "family_b");
  assert.match(res.body.reviews[0].review, /^\[simulated reviewer sim-b\]/);
  assert.match(res.body.routing_note, /Only 1 of 2 reviews/);
  assert.equal(res.body.charged_credits, Math.ceil(CREDITS.ultra2x / 2));
  assert.doesNotMatch(res.body.instruction, /two reviewers/);
});

test("every reviewer failing: 503 sharpen_no_reviewer, nothing charged, nothing on the ledger", async () => {
  const { key, accountId } = await priority.account("pro");
  for (const m of ["sim-b", "sim-c", "sim-d"]) sim.setBehaviour(m, "fail");
  const res = await sharpen(priority, key, body("family_a", { stage: "stage3+" }));
  assert.equal(res.status, 503, res.text);
  assert.equal(res.body.error.code, "sharpen_no_reviewer");
  assert.equal(res.body.error.retryable, true);
  assert.deepEqual([...new Set(sim.requests.map((r) => r.model))].sort(), ["sim-b", "sim-c", "sim-d"]);
  const account = await priority.store.getAccount(accountId);
  assert.equal(account?.creditsUsed, 0);
  assert.equal(account?.creditsReserved, 0);
  assert.equal(await priority.store.ledgerTotal(accountId), 0);
  assert.deepEqual(await priority.store.usage(accountId, 0), []);
});

test("timeouts: a hung reviewer falls through to the next; every reviewer timing out is 503 sharpen_no_reviewer", async () => {
  const { key, accountId } = await priority.account("pro");
  sim.setBehaviour("sim-b", "hang");
  const slow = await sharpen(priority, key, body("family_a"));
  assert.equal(slow.status, 200, slow.text);
  assert.equal(slow.body.reviews[0].reviewer.family, "family_c");
  assert.match(slow.body.routing_note, /family_b \(sim-b\) timed out/);

  for (const m of ["sim-b", "sim-c", "sim-d"]) sim.setBehaviour(m, "hang");
  const started = Date.now();
  const res = await sharpen(priority, key, body("family_a"));
  // Spec 4.8: no reviewer answered → 503 sharpen_no_reviewer, even when the deadline is the cause.
  assert.equal(res.status, 503, res.text);
  assert.equal(res.body.error.code, "sharpen_no_reviewer");
  assert.equal(res.body.error.retryable, true);
  assert.match(res.body.error.message, /^No reviewer answered before the Sharpen deadline/);
  assert.match(res.body.error.hint, /Nothing was charged/);
  assert.ok(Date.now() - started < 5000, "the review deadline bounds the call");
  const account = await priority.store.getAccount(accountId);
  assert.equal(account?.creditsUsed, CREDITS.sharpen, "only the first call was charged");
  assert.equal(account?.creditsReserved, 0);
  const ledger = await priority.store.ledgerTotal(accountId);
  assert.equal(ledger, CREDITS.sharpen, "no ledger row for the refused call");
});

test("timeouts mixed with errors: 503 sharpen_no_reviewer, the message names each outcome", async () => {
  const { key } = await priority.account("pro");
  sim.setBehaviour("sim-b", "hang");
  sim.setBehaviour("sim-c", "fail");
  sim.setBehaviour("sim-d", "fail");
  const res = await sharpen(priority, key, body("family_a"));
  assert.equal(res.status, 503, res.text);
  assert.equal(res.body.error.code, "sharpen_no_reviewer");
  assert.match(res.body.error.message, /family_b \(sim-b\) timed out/);
  assert.match(res.body.error.message, /family_c \(sim-c\) failed \(provider_error\)/);
});

test("a slow reviewer inside the deadline still answers (no premature timeout)", async () => {
  const { key } = await priority.account("pro");
  sim.setBehaviour("sim-b", { delayMs: 100 });
  const res = await sharpen(priority, key, body("family_a"));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.reviews[0].reviewer.family, "family_b");
  assert.equal(res.body.routing_note, undefined);
});
