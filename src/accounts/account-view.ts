/**
 * The account resource (spec 4.7): GET /v1/account, the MCP `account` tool and the dashboard's
 * overview all answer it. The account is read now (key lookups may be cached; balances never are).
 *
 * What it says of the capabilities and of Sharpen is decided above the accounts (the catalog's
 * availability, Sharpen's entitlement), so the wiring (src/services.ts) passes those rules in.
 */
import type { SharpenStage } from "../config.ts";
import type { AccountResponse } from "../wire.ts";
import { type AccountService, balanceOf, type Caller } from "./accounts.ts";

export interface AccountViewDeps {
  accounts: AccountService;
  /** The ids of the capabilities the caller's plan enables (src/catalog/availability.ts). */
  enabledCapabilities: (caller: Caller) => string[];
  /** Whether Sharpen is on for the caller, and the stage its calls are served at (src/sharpen/entitlement.ts). */
  sharpen: (caller: Caller) => { enabled: boolean; stage: SharpenStage };
}

/** The caller's account, as GET /v1/account answers it (`sharpen_stage`, optional on the wire, always sent). */
export type AccountView = (authenticated: Caller) => Promise<AccountResponse & { sharpen_stage: SharpenStage }>;

export function makeAccountView(deps: AccountViewDeps): AccountView {
  return async (authenticated) => {
    const caller = await deps.accounts.refresh(authenticated);
    // The stage calls are served at (stock when Sharpen is off), not the raw saved setting.
    const sharpen = deps.sharpen(caller);
    const enabled = deps.enabledCapabilities(caller);
    if (sharpen.enabled) enabled.push("sharpen");
    // Only for a key with its own limit (docs/architecture.md, "Credits"): what it may still spend.
    const keyBudget = await deps.accounts.keyBudget(caller);
    return {
      plan: { id: caller.plan.id, name: caller.plan.name },
      status: caller.account.status,
      cadence: caller.account.cadence,
      credits: balanceOf(caller.account),
      sharpen_tier: caller.plan.sharpenTier,
      sharpen_stage: sharpen.stage,
      enabled_capabilities: enabled,
      ...(keyBudget === null ? {} : { key_budget: keyBudget }),
    };
  };
}
