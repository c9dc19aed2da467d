/**
 * POST /v1/sharpen entitlement, validation and billing over real HTTP (reviewers on the model
 * simulator): saved vs per-call stage, stages above the plan, `stock`, plans without Sharpen,
 * the 60,000-character input limit, unknown keys, tier credits, the catalog block, and
 * deployments with too few reviewers. Routing and failures are in sharpen.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { createSharpenHandler } from "../src/sharpen/handler.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { type ModelSimulator, startModelSimulator } from "../src/demo/model-simulator.ts";

const TIERS = ["sharpen", "plus", "ultra", "ultra2x"];
const plan = (id: string, extra: Record<string, unknown>) => ({
  id,
  credits: 10_000,
  period: "monthly",
  rateLimitPerMinute: 10_000,
  ...extra,
});
const PLANS = JSON.stringify([
  plan("free", { period: "once", sharpenTier: "sharpen", sharpenDefaultStage: "stage1" }),
  plan("pro", { sharpenTier: "ultra2x", sharpenDefaultStage: "stage1" }),
  plan("ultra", { sharpenTier: "ultra", sharpenDefaultStage: "stage3" }),
  plan("stock", { sharpenTier: "ultra2x", sharpenDefaultStage: "stock" }),
  plan("nosharpen", {
    capabilities: ["music.search"],
    sharpenTier: "ultra2x",
    sharpenDefaultStage: "stage1",
  }),
]);
const CREDITS = { sharpen: 3, plus: 7, ultra: 11, ultra2x: 13 };

function reviewer(family: string, kind: string, model: string, url: string, keyVar = "SIM_KEY") {
  return { family, kind, model, baseUrl: kind === "openai" ? `${url}/v1` : url, keyVar, tiers: TIERS };
}

let sim: ModelSimulator;
let h: Harness;
/** Only family_a has its key: too few reviewers for some requests. */
let single: Harness;
/** No reviewer has its key. */
let none: Harness;

before(async () => {
  sim = await startModelSimulator();
  const base = { QUARRY_PLANS: PLANS, SHARPEN_TIER_CREDITS: JSON.stringify(CREDITS), SIM_KEY: "k" };
  const sharpen = {
    sharpen: (services: Parameters<typeof createSharpenHandler>[0]) => createSharpenHandler(services),
  };
  h = await startHarness({
    ...sharpen,
    env: {
      ...base,
      SHARPEN_REVIEWERS: JSON.stringify([
        reviewer("family_a", "openai", "sim-a", sim.url),
        reviewer("family_b", "anthropic", "sim-b", sim.url),
      ]),
    },
  });
  single = await startHarness({
    ...sharpen,
    replay: h.replay,
    env: {
      ...base,
      SHARPEN_REVIEWERS: JSON.stringify([
        reviewer("family_a", "openai", "sim-a", sim.url),
        reviewer("family_b", "anthropic", "sim-b", sim.url, "UNSET_KEY"),
      ]),
    },
  });
  none = await startHarness({
    ...sharpen,
    replay: h.replay,
    env: {
      ...base,
      SHARPEN_REVIEWERS: JSON.stringify([reviewer("family_a", "openai", "sim-a", sim.url, "UNSET_KEY")]),
    },
  });
});

after(async () => {
  await none?.close();
  await single?.close();
  await h?.close();
  await sim?.close();
});

beforeEach(() => sim.reset());

const body = (extra: Record<string, unknown> = {}) => ({
  task: "Summarise the memo.",
  draft: "The memo says nothing.",
  caller_provider: "family_c",
  ...extra,
});

const post = (harness: Harness, key: string, payload: unknown) =>
  harness.call("POST", "/v1/sharpen", { key, body: payload });

test("the response has exactly the SharpenResponse fields; the saved stage is used when stage is omitted", async () => {
  const { key } = await h.account("free");
  const res = await post(h, key, body());
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(Object.keys(res.body).sort(), [
    "balance",
    "charged_credits",
    "instruction",
    "partial",
    "reviews",
    "stage",
    "tier",
  ]);
  assert.equal(res.body.stage, "stage1");
  assert.equal(res.body.tier, "sharpen");
  assert.deepEqual(Object.keys(res.body.reviews[0]).sort(), ["review", "reviewer"]);
  assert.deepEqual(Object.keys(res.body.reviews[0].reviewer).sort(), ["family", "model"]);
  assert.deepEqual(Object.keys(res.body.balance).sort(), ["cap", "period_end", "used"]);
});

test("a per-call stage never changes the saved one", async () => {
  const { key, accountId } = await h.account("pro");
  await h.services.accounts.update(accountId, { sharpenStage: "stage1" });
  const res = await post(h, key, body({ stage: "stage3" }));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.stage, "stage3");
  assert.equal(res.body.tier, "ultra");
  assert.equal((await h.store.getAccount(accountId))?.sharpenStage, "stage1");
  const account = await h.call("GET", "/v1/account", { key });
  assert.equal(account.body.sharpen_stage, "stage1");
  const next = await post(h, key, body());
  assert.equal(next.body.stage, "stage1");
  assert.equal(next.body.tier, "sharpen");
});

test("a per-call stage above the plan's tier is refused with 403 and the allowed stages; nothing is called", async () => {
  const { key, accountId } = await h.account("free");
  const res = await post(h, key, body({ stage: "stage2" }));
  assert.equal(res.status, 403, res.text);
  assert.equal(res.body.error.code, "capability_disabled");
  assert.match(res.body.error.hint, /stage1/);
  const ultra = await h.account("ultra");
  assert.equal((await post(h, ultra.key, body({ stage: "stage3+" }))).status, 403);
  assert.equal((await post(h, ultra.key, body({ stage: "stage3" }))).status, 200);
  assert.equal(sim.requests.length, 2, "only the allowed call reached a reviewer");
  assert.equal(await h.store.ledgerTotal(accountId), 0);
});

test("saved stage stock: refused with and without a per-call stage", async () => {
  const stockPlan = await h.account("stock");
  for (const payload of [body(), body({ stage: "stage1" })]) {
    const res = await post(h, stockPlan.key, payload);
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.error.code, "capability_disabled");
    assert.match(res.body.error.message, /stock/);
  }
  // The same for an account that saved `stock` on a plan whose default is on.
  const saved = await h.account("pro");
  await h.services.accounts.update(saved.accountId, { sharpenStage: "stock" });
  assert.equal((await post(h, saved.key, body({ stage: "stage1" }))).status, 403);
  assert.equal(sim.requests.length, 0);
});

test("a plan without Sharpen: 403 capability_disabled", async () => {
  const { key } = await h.account("nosharpen");
  const res = await post(h, key, body({ stage: "stage1" }));
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "capability_disabled");
  const catalog = await h.call("GET", "/v1/catalog", { key });
  assert.equal(catalog.body.sharpen.enabled, false);
});

// Spec 2.10: `stock` means Sharpen is disabled, and a stage stands for a tier. GET /v1/account and
// the catalog report the stage calls are served at, never a raw saved setting that disagrees.
const STAGE_OF_TIER: Record<string, string> = {
  sharpen: "stage1",
  plus: "stage2",
  ultra: "stage3",
  ultra2x: "stage3+",
};

async function reported(key: string) {
  const account = await h.call("GET", "/v1/account", { key });
  const catalog = await h.call("GET", "/v1/catalog", { key });
  assert.equal(account.status, 200, account.text);
  assert.equal(catalog.status, 200, catalog.text);
  return { account: account.body, sharpen: catalog.body.sharpen };
}

test("reported stage: a plan without Sharpen reports stock and enabled false; the saved setting is kept", async () => {
  const { key, accountId } = await h.account("nosharpen");
  await h.services.accounts.update(accountId, { sharpenStage: "stage2" });
  const { account, sharpen } = await reported(key);
  assert.equal(account.sharpen_stage, "stock");
  assert.ok(!account.enabled_capabilities.includes("sharpen"), "!account.enabled_capabilities.includes(\"sharpen\")");
  assert.equal(sharpen.stage, "stock");
  assert.equal(sharpen.enabled, false);
  const saved = (await h.store.getAccount(accountId))?.sharpenStage;
  assert.equal(saved, "stage2", "the saved stage is not changed");
  // Saved `stock` on a plan with Sharpen: reported the same way.
  const off = await h.account("pro");
  await h.services.accounts.update(off.accountId, { sharpenStage: "stock" });
  const stock = await reported(off.key);
  assert.equal(stock.account.sharpen_stage, "stock");
  assert.ok(!stock.account.enabled_capabilities.includes("sharpen"), "!stock.account.enabled_capabilities.includes(\"sharpen\")");
  assert.equal(stock.sharpen.stage, "stock");
  assert.equal(stock.sharpen.enabled, false);
});

test("reported stage: a saved stage above the plan's tier is reported capped, as calls are served", async () => {
  const { key, accountId } = await h.account("free");
  await h.services.accounts.update(accountId, { sharpenStage: "stage3+" });
  const { account, sharpen } = await reported(key);
  assert.equal(account.sharpen_tier, "sharpen");
  assert.equal(account.sharpen_stage, STAGE_OF_TIER[account.sharpen_tier]);
  assert.ok(account.enabled_capabilities.includes("sharpen"), "account.enabled_capabilities.includes(\"sharpen\")");
  assert.equal(sharpen.tier, "sharpen");
  assert.equal(sharpen.stage, "stage1");
  assert.equal(sharpen.enabled, true);
  assert.equal(sharpen.typical_credits, CREDITS.sharpen);
  const res = await post(h, key, body());
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.stage, account.sharpen_stage, "the reported stage is the one served");
  const saved = (await h.store.getAccount(accountId))?.sharpenStage;
  assert.equal(saved, "stage3+", "the saved stage is not changed");
});

test("reported stage: a saved stage the plan allows is reported as saved", async () => {
  const { key, accountId } = await h.account("pro");
  await h.services.accounts.update(accountId, { sharpenStage: "stage3" });
  const { account, sharpen } = await reported(key);
  assert.equal(account.sharpen_tier, "ultra2x");
  assert.equal(account.sharpen_stage, "stage3");
  assert.ok(account.enabled_capabilities.includes("sharpen"), "account.enabled_capabilities.includes(\"sharpen\")");
  assert.equal(sharpen.stage, "stage3");
  assert.equal(sharpen.enabled, true);
  assert.equal(sharpen.typical_credits, CREDITS.ultra);
  const res = await post(h, key, body());
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.stage, "stage3");
});

test("input limit: 59,999 combined characters accepted, 60,000 refused with a body-level violation", async () => {
  const { key } = await h.account("pro");
  const parts = (total: number) => {
    const draft = "d".repeat(20_000);
    const context = "c".repeat(20_000);
    const approach = "a".repeat(5_000);
    return { draft, context, approach, task: "t".repeat(total - 45_000) };
  };
  const ok = await post(h, key, body(parts(59_999)));
  assert.equal(ok.status, 200, ok.text.slice(0, 300));
  const refused = await post(h, key, body(parts(60_000)));
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error.code, "invalid_request");
  assert.deepEqual(refused.body.error.violations, [
    {
      path: "",
      message: "task, context, approach and draft hold 60000 characters together; the limit is 59999",
    },
  ]);
  assert.equal(sim.requests.length, 2, "the refused call reached no reviewer");
  // Characters are code points: 59,999 of them pass even when emoji make the UTF-16 length larger.
  const emoji = await post(
    h,
    key,
    body({ task: "😀".repeat(10_000), draft: "d".repeat(49_999 - "Summarise".length), context: "Summarise" }),
  );
  assert.equal(emoji.status, 200, emoji.text.slice(0, 300));
});

test("unknown keys and bad fields are refused with JSON pointers", async () => {
  const { key } = await h.account("pro");
  const unknown = await post(h, key, body({ temperature: 0.2 }));
  assert.equal(unknown.status, 400);
  assert.deepEqual(unknown.body.error.violations, [
    { path: "/temperature", message: 'unknown field "temperature"; fields: task, context, approach, draft, caller_provider, stage' },
  ]);
  const bad = await post(h, key, { task: "", caller_provider: "family_z", stage: "stage9" });
  assert.equal(bad.status, 400);
  const paths = bad.body.error.violations.map((v: { path: string }) => v.path).sort();
  assert.deepEqual([...new Set(paths)], ["/caller_provider", "/draft", "/stage", "/task"]);
  // A vendor's name where a family belongs: the violation says where the families are listed.
  const vendor = await post(h, key, body({ caller_provider: "anthropic" }));
  assert.equal(vendor.status, 400);
  assert.match(vendor.body.error.violations[0].message, /must be one of .*; which models each family stands for is in the guide \(GET \/v1\/guide, or the MCP resource quarry:\/\/guide\)/);
  const notObject = await post(h, key, [1, 2]);
  assert.equal(notObject.status, 400);
  assert.equal(sim.requests.length, 0);
});

test("charges match the configured tier credits; balance and ledger agree", async () => {
  const { key, accountId } = await h.account("pro");
  let used = 0;
  for (const [stage, tier] of [
    ["stage1", "sharpen"],
    ["stage2", "plus"],
    ["stage3", "ultra"],
    ["stage3+", "ultra2x"],
  ] as const) {
    const res = await post(h, key, body({ stage }));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.tier, tier);
    assert.equal(res.body.charged_credits, CREDITS[tier]);
    used += CREDITS[tier];
    assert.equal(res.body.balance.used, used);
  }
  assert.equal(await h.store.ledgerTotal(accountId), used);
  const usage = await h.store.usage(accountId, 0);
  assert.deepEqual(usage, [{ capability: "sharpen", operation: "sharpen", calls: 4, credits: used }]);
});

test("credits exhausted: 402 before any reviewer is called", async () => {
  const { key, accountId } = await h.account("free");
  await h.store.updateAccount(accountId, { creditsCap: 2 });
  const res = await post(h, key, body());
  assert.equal(res.status, 402);
  assert.equal(res.body.error.code, "credits_exhausted");
  assert.equal(sim.requests.length, 0);
});

test("catalog block: typical_credits from the configured tier credits, enabled with reviewers", async () => {
  const free = await h.account("free");
  const catalog = await h.call("GET", "/v1/catalog", { key: free.key });
  assert.equal(catalog.body.sharpen.enabled, true);
  assert.equal(catalog.body.sharpen.typical_credits, CREDITS.sharpen);
  assert.equal(catalog.body.sharpen.url, "/v1/sharpen");
  const ultra = await h.account("ultra");
  assert.equal(
    (await h.call("GET", "/v1/catalog", { key: ultra.key })).body.sharpen.typical_credits,
    CREDITS.ultra,
  );
});

test("no reviewer with a key: catalog shows Sharpen disabled and the call is 503 capability_unavailable", async () => {
  const { key } = await none.account("pro");
  assert.equal((await none.call("GET", "/v1/catalog", { key })).body.sharpen.enabled, false);
  const res = await post(none, key, body());
  assert.equal(res.status, 503);
  assert.equal(res.body.error.code, "capability_unavailable");
});

test("only the caller's own family has a reviewer: 503 capability_unavailable, nothing charged", async () => {
  const { key, accountId } = await single.account("pro");
  const res = await post(single, key, body({ caller_provider: "family_a" }));
  assert.equal(res.status, 503);
  assert.equal(res.body.error.code, "capability_unavailable");
  assert.match(res.body.error.message, /outside family_a/);
  assert.equal(await single.store.ledgerTotal(accountId), 0);
  assert.equal(sim.requests.length, 0);
});

test("ultra2x with one eligible family: one review, partial, a note saying why, half the credits", async () => {
  const { key } = await single.account("pro");
  const res = await post(single, key, body({ caller_provider: "family_c", stage: "stage3+" }));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.partial, true);
  assert.equal(res.body.reviews.length, 1);
  assert.equal(res.body.reviews[0].reviewer.family, "family_a");
  assert.match(res.body.routing_note, /Only 1 reviewer family other than family_c serves tier ultra2x/);
  assert.equal(res.body.charged_credits, Math.ceil(CREDITS.ultra2x / 2));
});
