/**
 * config.ts: plans from QUARRY_PLANS are checked at start, so the values GET /v1/account and the
 * balance show stay within the contract (whole credits, a known period, tier and stage).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, loadConfig } from "./config.ts";

const withPlans = (plans: unknown) => () => loadConfig({ QUARRY_PLANS: JSON.stringify(plans) });

test("a plan with defaults: monthly, 60 a minute, every capability, Sharpen's first tier", () => {
  const config = loadConfig({ QUARRY_PLANS: JSON.stringify([{ id: "team", credits: 5000 }]) });
  assert.deepEqual(config.plans, [
    {
      id: "team",
      name: "team",
      credits: 5000,
      period: "monthly",
      rateLimitPerMinute: 60,
      capabilities: "*",
      sharpenTier: "sharpen",
      sharpenDefaultStage: "stage1",
    },
  ]);
});

test("values outside the contract stop the start with one line naming the plan and the field", () => {
  const refused: [unknown, RegExp][] = [
    [[{ id: "a", credits: -1 }], /plan "a": credits must be a whole number/],
    [[{ id: "a", credits: 1.5 }], /plan "a": credits must be a whole number/],
    [[{ id: "a", credits: 10, period: "weekly" }], /plan "a": period must be "once" or "monthly"/],
    [[{ id: "a", credits: 10, rateLimitPerMinute: "abc" }], /plan "a": rateLimitPerMinute must be a whole number/],
    [[{ id: "a", credits: 10, rateLimitPerMinute: 0 }], /plan "a": rateLimitPerMinute must be a whole number/],
    [[{ id: "a", credits: 10, capabilities: "web.search" }], /plan "a": capabilities must be "\*" or a list/],
    [[{ id: "a", credits: 10, sharpenTier: "mega" }], /plan "a": sharpenTier must be one of sharpen, plus, ultra, ultra2x/],
    [[{ id: "a", credits: 10, sharpenDefaultStage: "stage9" }], /plan "a": sharpenDefaultStage must be one of/],
    [[{ id: "a", credits: 10, name: "" }], /plan "a": name must be a non-empty string/],
    [[{ id: "a", credits: 10 }, { id: "a", credits: 20 }], /plan "a" is defined twice/],
    [[{ id: "", credits: 10 }], /plan 0 needs at least id and credits/],
    [[], /non-empty JSON array/],
  ];
  for (const [plans, message] of refused) {
    assert.throws(withPlans(plans), (e: unknown) => e instanceof ConfigError && message.test(e.message), JSON.stringify(plans));
  }
});
