/**
 * Plans for end-to-end tests that make many calls with one key (every bound and rule of a capability,
 * at execute and through update): the default plans with a rate limit no test reaches, so a 429 never
 * stands in for the answer under test. Pass as `startCapabilityKit(id, { env: ROOMY_PLANS })`.
 */
import { DEFAULT_PLANS } from "../../src/config.ts";

export const ROOMY_PLANS: Record<string, string> = {
  QUARRY_PLANS: JSON.stringify(DEFAULT_PLANS.map((p) => ({ ...p, rateLimitPerMinute: 100_000 }))),
};
