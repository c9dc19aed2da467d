/**
 * Sharpen's entry point for the app. Until reviewers are configured (issue: Sharpen) it answers
 * 503 capability_unavailable and the catalog shows Sharpen as not enabled.
 */
import type { Services, SharpenHandler } from "../app.ts";
import { ApiError } from "../errors.ts";
import { sharpenBlock } from "./entitlement.ts";

export function createSharpenHandler(services: Omit<Services, "sharpen">): SharpenHandler {
  return {
    review: async () => {
      throw new ApiError("capability_unavailable", "Sharpen has no reviewers configured in this deployment.", {
        hint: "The operator configures reviewers (docs/sharpen.md).",
      });
    },
    block: (caller) => ({ ...sharpenBlock(services.accounts, caller), enabled: false }),
  };
}
