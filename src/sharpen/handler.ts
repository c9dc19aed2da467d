/**
 * POST /v1/sharpen (REST and MCP share it): entitlement → validation and the combined input limit
 * → stage and tier → eligible reviewers → reserve the tier's credits → review → settle (full, or
 * half on a partial ultra2x) → SharpenResponse. Also the catalog's `sharpen` block.
 */
import type { AccountService, Caller } from "../accounts/accounts.ts";
import { balanceOf } from "../accounts/accounts.ts";
import type { Config, SharpenStage } from "../config.ts";
import type { Billing } from "../credits/billing.ts";
import { ApiError, type CallOrigin, invalidRequest } from "../errors.ts";
import { HttpUpstreamClient, whileClientWaits } from "../upstream/client.ts";
import { reportingSteps } from "../upstream/progress.ts";
import type { UpstreamClient } from "../upstream/types.ts";
import { isObject, validate } from "../validation.ts";
import type { SharpenResponse } from "../wire.ts";
import { allowedStages, effectiveSavedStage, STAGE_TIER, type SharpenBlock, sharpenBlock, tierRank } from "./entitlement.ts";
import { loadPrompts } from "./prompts.ts";
import { reviewDraft } from "./review.ts";
import { loadSharpenSettings } from "./reviewers.ts";
import { eligibleReviewers, noReviewerError, reviewsFor, rotate, routingNote } from "./routing.ts";
import { combinedInputLength, SHARPEN_INPUT_LIMIT, SharpenRequestSchema } from "./schema.ts";

type ActiveStage = Exclude<SharpenStage, "stock">;

interface SharpenBody {
  task: string;
  context?: string;
  approach?: string;
  draft: string;
  caller_provider: string;
  stage?: ActiveStage;
}

export interface SharpenHandlerDeps {
  /** The process's shared upstream client; without one the handler opens its own. */
  upstream?: UpstreamClient;
}

function parseBody(body: unknown): SharpenBody {
  if (!isObject(body)) throw invalidRequest([{ path: "", message: "must be a JSON object" }]);
  const violations = validate(SharpenRequestSchema, body);
  const length = combinedInputLength(body);
  if (length >= SHARPEN_INPUT_LIMIT) {
    // A combined rule has no single offending field: the pointer is the body itself ("").
    violations.push({
      path: "",
      message: `task, context, approach and draft hold ${length} characters together; the limit is ${SHARPEN_INPUT_LIMIT - 1}`,
    });
  }
  for (const v of violations) {
    // A vendor or model name where a family belongs: say where the families are listed.
    if (v.path === "/caller_provider") v.message += "; which models each family stands for is in the guide (GET /v1/guide, or the MCP resource quarry://guide)";
  }
  if (violations.length > 0) throw invalidRequest(violations);
  return body as unknown as SharpenBody;
}

/** The client as a followed call sees it: each reviewer's answer is a step (an MCP progressToken). */
function followed(upstream: UpstreamClient, origin: CallOrigin): UpstreamClient {
  return origin.progress === undefined ? upstream : reportingSteps(upstream, origin.progress);
}

function disabled(message: string, hint: string): ApiError {
  return new ApiError("capability_disabled", message, { hint });
}

/** Sharpen plugs in here (createSharpenHandler by default; tests may inject their own). */
export interface SharpenHandler {
  review(caller: Caller, body: unknown, origin: CallOrigin): Promise<unknown>;
  block(caller: Caller): SharpenBlock;
}

/** What the handler uses of the wired services: the configuration, accounts and billing. */
export interface SharpenServices {
  config: Config;
  accounts: AccountService;
  billing: Billing;
}

export function createSharpenHandler(
  services: SharpenServices,
  deps: SharpenHandlerDeps = {},
): SharpenHandler {
  const settings = loadSharpenSettings(services.config.env);
  const prompts = loadPrompts(settings.promptVersion);
  const upstream = deps.upstream ?? new HttpUpstreamClient(services.config);
  const { accounts, billing } = services;
  let turn = 0;

  /** The stage to serve, or a 403 when Sharpen is off or the stage is above the plan. */
  function stageFor(
    caller: Caller,
    requested: ActiveStage | undefined,
  ): { stage: ActiveStage; note?: string } {
    const planTier = caller.plan.sharpenTier;
    if (requested !== undefined) {
      if (tierRank(STAGE_TIER[requested]) > tierRank(planTier)) {
        const allowed = allowedStages(planTier).map((s) => s.stage);
        throw disabled(
          `Stage ${requested} (tier ${STAGE_TIER[requested]}) is above the ${caller.plan.name} plan's tier ${planTier}.`,
          `Use one of ${allowed.join(", ")}, or upgrade the plan.`,
        );
      }
      return { stage: requested };
    }
    const saved = accounts.sharpenStage(caller);
    const served = effectiveSavedStage(saved, planTier) as ActiveStage;
    if (served === saved) return { stage: served };
    return {
      stage: served,
      note: `The saved stage ${saved} is above the plan's tier ${planTier}; served as ${served}.`,
    };
  }

  async function review(caller: Caller, rawBody: unknown, origin: CallOrigin): Promise<SharpenResponse> {
    if (!accounts.isEnabled(caller, "sharpen")) {
      throw accounts.disabledError(caller, "Sharpen", "Upgrade to a plan that includes Sharpen.");
    }
    if (accounts.sharpenStage(caller) === "stock") {
      throw disabled(
        "Sharpen is switched off for this account (saved stage stock).",
        "Choose a Sharpen stage in the account settings; a per-call stage needs Sharpen switched on.",
      );
    }
    if (settings.reviewers.length === 0) {
      throw new ApiError(
        "capability_unavailable",
        "Sharpen has no reviewers configured in this deployment.",
        {
          hint: "The operator configures reviewers and their keys (docs/sharpen.md).",
        },
      );
    }
    const body = parseBody(rawBody);
    const { stage, note: stageNote } = stageFor(caller, body.stage);
    const tier = STAGE_TIER[stage];
    const needed = reviewsFor(tier);
    const eligible = eligibleReviewers(settings.reviewers, body.caller_provider, tier);
    if (eligible.length === 0) {
      const except = body.caller_provider === "other" ? "" : ` outside ${body.caller_provider}`;
      throw new ApiError(
        "capability_unavailable",
        `No reviewer${except} serves tier ${tier} in this deployment.`,
        {
          hint: "Try a lower stage, or ask the operator to declare reviewers of more families (docs/sharpen.md).",
        },
      );
    }
    const candidates = settings.order === "rotate" ? rotate(eligible, turn++) : eligible;
    const credits = settings.tierCredits[tier];
    const billed = await billing.run(
      caller,
      { capability: "sharpen", operation: "sharpen", maxCredits: credits, origin, needsCredit: true },
      async () => {
        const outcome = await reviewDraft({
          // Reviewers not yet asked are not asked once the caller has gone.
          upstream: followed(origin.clientGone === undefined ? upstream : whileClientWaits(upstream, origin.clientGone), origin),
          prompts,
          candidates,
          needed,
          input: body,
          deadlineMs: settings.deadlineMs,
          reviewerDeadlineMs: settings.reviewerDeadlineMs,
        });
        if (outcome.answers.length === 0) throw noReviewerError(outcome.failures);
        // A partial ultra2x delivers half of what was asked: charge half, rounded up.
        const charge = outcome.answers.length < needed ? Math.ceil(credits / 2) : credits;
        return { result: outcome, credits: charge };
      },
    );
    const outcome = billed.result;
    const note = [stageNote, routingNote(outcome, needed, candidates, body.caller_provider, tier)]
      .filter((n): n is string => n !== undefined)
      .join(" ");
    return {
      tier,
      stage,
      reviews: outcome.answers.map((a) => ({
        reviewer: { family: a.reviewer.family, model: a.reviewer.model },
        review: a.result,
      })),
      partial: outcome.answers.length < needed,
      ...(note ? { routing_note: note } : {}),
      instruction: outcome.answers.length > 1 ? prompts.instruction.two : prompts.instruction.one,
      charged_credits: billed.charged,
      balance: balanceOf(billed.account),
    };
  }

  return {
    review,
    block: (caller) => {
      const block = sharpenBlock(accounts, caller, settings.tierCredits);
      return settings.reviewers.length > 0 ? block : { ...block, enabled: false };
    },
  };
}
