/** SharpenRequest of spec 4.8 (no extra keys). The 60,000-character combined limit is a rule in code. */
import { Type } from "@sinclair/typebox";
import { STAGE_TIERS_TEXT } from "./entitlement.ts";

export const SHARPEN_INPUT_LIMIT = 60_000;

/** The neutral model-family ids of the spec's naming rule. */
export const FAMILIES = ["family_a", "family_b", "family_c", "family_d", "family_e", "family_f", "family_g"] as const;

/** A caller's family, or `other` (any reviewer family may then serve). */
export const CALLER_PROVIDERS = [...FAMILIES, "other"] as const;

export const SharpenRequestSchema = Type.Object(
  {
    task: Type.String({ minLength: 1, description: "What the user asked." }),
    context: Type.Optional(Type.String({ description: "Facts, constraints, data for the reviewer." })),
    approach: Type.Optional(Type.String({ description: "How the draft was made." })),
    draft: Type.String({ minLength: 1, description: "The answer to review." }),
    caller_provider: Type.Union(
      CALLER_PROVIDERS.map((v) => Type.Literal(v)),
      {
        description:
          "The family of the model that wrote the draft (yours); the reviewer is always from another one. " +
          "Which models each family stands for in this deployment, and each stage's credits: the guide, " +
          "\"Sharpen in this deployment\" (GET /v1/guide; over MCP the resource quarry://guide). `other`: none of them " +
          "(any reviewer may then be chosen).",
      },
    ),
    stage: Type.Optional(
      Type.Union(
        [Type.Literal("stage1"), Type.Literal("stage2"), Type.Literal("stage3"), Type.Literal("stage3+")],
        {
          description:
            `${STAGE_TIERS_TEXT} (two reviewers); higher stages cost more (credits per stage: the guide). ` +
            "Omit to use the saved stage; a per-call stage never changes the saved one.",
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: `task, context, approach and draft together hold at most ${SHARPEN_INPUT_LIMIT - 1} characters (60,000 or more is refused).`,
  },
);

/**
 * Characters of task, context, approach and draft together, counted as Unicode code points (as
 * Ajv counts minLength), so an emoji is one character however JavaScript stores it.
 */
export function combinedInputLength(
  body: Partial<Record<"task" | "context" | "approach" | "draft", unknown>>,
): number {
  let n = 0;
  for (const value of [body.task, body.context, body.approach, body.draft]) {
    if (typeof value === "string") for (const _ of value) n++;
  }
  return n;
}
