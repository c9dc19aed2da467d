/**
 * Sharpen entitlement: stages, tiers and what the plan allows. Shared by the catalog's `sharpen`
 * block, GET /v1/account and POST /v1/sharpen.
 */
import type { AccountService, Caller } from "../accounts/accounts.ts";
import { STAGE_TIER, type SharpenStage, type SharpenTier, TIERS } from "../config.ts";
import type { CatalogResponse } from "../wire.ts";

export { STAGE_TIER, STAGE_TIERS_TEXT, STAGES, TIERS } from "../config.ts";

/** Default credits per tier (configurable in the Sharpen config). */
export const DEFAULT_TIER_CREDITS: Record<SharpenTier, number> = {
  sharpen: 5,
  plus: 10,
  ultra: 20,
  ultra2x: 40,
};

export function tierRank(tier: SharpenTier): number {
  return TIERS.indexOf(tier);
}

/** Stages whose tier does not exceed the plan's tier. */
export function allowedStages(planTier: SharpenTier): { stage: SharpenStage; tier: SharpenTier }[] {
  return (Object.entries(STAGE_TIER) as [Exclude<SharpenStage, "stock">, SharpenTier][])
    .filter(([, tier]) => tierRank(tier) <= tierRank(planTier))
    .map(([stage, tier]) => ({ stage, tier }));
}

/**
 * The stage a saved setting gives on this plan: `stock` stays `stock`; a saved stage above the
 * plan's tier (e.g. after a downgrade) is served at the plan's highest stage instead.
 */
export function effectiveSavedStage(saved: SharpenStage, planTier: SharpenTier): SharpenStage {
  if (saved === "stock" || tierRank(STAGE_TIER[saved]) <= tierRank(planTier)) return saved;
  return allowedStages(planTier).at(-1)?.stage ?? "stock";
}

/**
 * Whether Sharpen is on for this account and the stage its calls are served at when no per-call
 * `stage` is given. Sharpen is on when the plan includes it (and the account is not canceled) and
 * the saved stage is not `stock`; the reported stage is then the saved one capped at the plan's
 * tier (`effectiveSavedStage`, the rule POST /v1/sharpen serves by), else `stock` (spec 2.10:
 * `stock` means Sharpen is disabled). The saved setting itself is never changed here; the operator
 * CLI (`accounts show`) shows it as saved.
 */
export function sharpenEntitlement(
  accounts: AccountService,
  caller: Caller,
): { enabled: boolean; stage: SharpenStage } {
  const saved = accounts.sharpenStage(caller);
  const enabled = accounts.isEnabled(caller, "sharpen") && saved !== "stock";
  return { enabled, stage: enabled ? effectiveSavedStage(saved, caller.plan.sharpenTier) : "stock" };
}

/** The catalog's `sharpen` block (its wire shape). */
export type SharpenBlock = CatalogResponse["sharpen"];

/** The catalog's `sharpen` block for a caller; `stage` and `enabled` as in `sharpenEntitlement`. */
export function sharpenBlock(
  accounts: AccountService,
  caller: Caller,
  tierCredits: Record<SharpenTier, number> = DEFAULT_TIER_CREDITS,
): SharpenBlock {
  const { enabled, stage } = sharpenEntitlement(accounts, caller);
  const tier = caller.plan.sharpenTier;
  const effectiveTier = stage === "stock" ? tier : STAGE_TIER[stage];
  return {
    tier,
    stage,
    stages: allowedStages(tier),
    url: "/v1/sharpen",
    typical_credits: tierCredits[effectiveTier],
    enabled,
  };
}
